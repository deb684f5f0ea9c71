package kernel

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestIdleFDsClamp: --idle-fds is cut to a quarter of RLIMIT_NOFILE, with
// a warning naming both; a bound below it is left alone; kernel.info's
// tunables report it by flag name; this process's own limit (the Go
// runtime raised it to the hard one) leaves the default alone here.
func TestIdleFDsClamp(t *testing.T) {
	l := DefaultLimits()
	if l.IdleFDs != DefaultIdleFDs {
		t.Fatalf("default --idle-fds %d, want %d", l.IdleFDs, DefaultIdleFDs)
	}
	if got := l.report()["idle-fds"]; got != DefaultIdleFDs {
		t.Errorf("tunables report idle-fds %d", got)
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err == nil && rl.Cur >= 4*DefaultIdleFDs {
		if w := clampIdleFDs(&l); w != "" || l.IdleFDs != DefaultIdleFDs {
			t.Errorf("RLIMIT_NOFILE %d cut the default to %d (%q)", rl.Cur, l.IdleFDs, w)
		}
	}
	w := clampIdleFDsTo(&l, 800)
	if l.IdleFDs != 200 || !strings.Contains(w, "--idle-fds 4096") || !strings.Contains(w, "using 200") {
		t.Errorf("under RLIMIT_NOFILE 800: --idle-fds %d, warning %q; want 200", l.IdleFDs, w)
	}
	small := Limits{IdleFDs: 150}
	if w := clampIdleFDsTo(&small, 800); small.IdleFDs != 150 || w != "" {
		t.Errorf("a bound within the quarter was changed to %d (%q)", small.IdleFDs, w)
	}
	tiny := Limits{IdleFDs: 12}
	if clampIdleFDsTo(&tiny, 3); tiny.IdleFDs != 1 {
		t.Errorf("under RLIMIT_NOFILE 3: --idle-fds %d, want 1", tiny.IdleFDs)
	}
}

// TestIdleFDsChargedPerSession: every session's spare pipes (and, with
// cgroups, its free leaves) are charged to the one kernel budget: sessions
// past it keep none and their spawns still run, and closing the sessions
// gives every charge back. Each session keeps a client attached until the
// end, so that none is closed for idleness while the others spawn (one
// connection moving from session to session let the first ones close,
// and give their charges back, when six spawns took longer than the idle
// time: the budget was then never full).
func TestIdleFDsChargedPerSession(t *testing.T) {
	k := startKernelLimits(t, func(l *Limits) {
		l.IdleFDs = 8 // two sessions' spare pipes
		l.SessionIdle = 100 * time.Millisecond
	})
	b := k.srv.idleFDs
	var conns []*client
	for i := range 6 {
		c := k.dial(t)
		conns = append(conns, c)
		c.attach(fmt.Sprintf("s%d", i), "")
		var ex execResult
		c.ok("exec", map[string]any{"src": "(^/bin/true).status"}, &ex)
		if string(ex.Value) != `{"$":"int","v":0}` {
			t.Fatalf("spawn in s%d answered %s", i, ex.Value)
		}
	}
	eventually(t, 10*time.Second, "the last answer's tail flushed", func() bool { return b.Used() == b.Limit() })
	for _, c := range conns {
		c.conn.Close()
	}
	eventually(t, 10*time.Second, "idle sessions closed", func() bool { return k.srv.sessions.len() == 0 })
	if got := b.Used(); got != 0 {
		t.Errorf("%d descriptors still charged after every session closed", got)
	}
}
