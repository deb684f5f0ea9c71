package kernel

import (
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/host"
)

// TestReattachWaitsForTheClose: a session reaped for idleness is closed
// after the registry forgets it; an attach of the same key in between
// waits for that close, so the close (which frees the event scope, the
// output spools and the restart state of its key) cannot take the new
// session's with it. Without the wait, the new session's event published
// before the old close runs is forgotten with the old scope.
func TestReattachWaitsForTheClose(t *testing.T) {
	l := DefaultLimits()
	l.MemoryLimit = 0
	srv, err := New(Config{Dir: t.TempDir(), Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	key := sessionKey{"agent:x", "s"}
	get := func() (*session, bool) {
		s, created, err := srv.sessions.get(key, func(tt *toolTable) (*eval.Interp, host.Host, error) {
			return srv.newSessionInterp(key.principal, srv.policy.For(key.principal, false), tt)
		}, srv.wireSession)
		if err != nil {
			t.Fatal(err)
		}
		return s, created
	}
	old, _ := get()
	old.release()
	reaped := srv.sessions.reap(time.Now().Add(time.Second), time.Nanosecond)
	if len(reaped) != 1 || reaped[0] != old {
		t.Fatalf("reaped %d sessions; want the idle one", len(reaped))
	}
	if n := srv.sessions.len(); n != 1 {
		t.Fatalf("registry counts %d sessions while one is closing; want 1", n)
	}

	type got struct {
		s       *session
		created bool
	}
	attached := make(chan got, 1)
	go func() {
		s, created := get()
		attached <- got{s, created}
	}()
	select {
	case g := <-attached:
		t.Fatalf("a session of a closing key was handed out (created %v) before the close", g.created)
	case <-time.After(100 * time.Millisecond):
	}

	old.close()
	srv.sessions.closed(key)
	g := <-attached
	if !g.created || g.s == old {
		t.Fatalf("after the close: created %v, same session %v; want a fresh one", g.created, g.s == old)
	}
	scope := events.Scope{Principal: key.principal, Session: key.name}
	srv.publishJSON(scope, "user.note", 1)
	if srv.bus.LatestSeq(scope, "user.note") == 0 {
		t.Fatal("the new session's event was not kept")
	}
	if n := srv.sessions.len(); n != 1 {
		t.Fatalf("registry counts %d sessions; want the new one", n)
	}
	g.s.release()
}

// TestClosingSessionStillCounts: a reaped session counts against its
// principal's limits until its close has finished, so a principal cannot
// hold more sessions than its limit by letting them go idle and attaching
// new names while the old ones are still releasing what they kept.
func TestClosingSessionStillCounts(t *testing.T) {
	l := DefaultLimits()
	l.MemoryLimit = 0
	l.SessionsPerPrincipal = 1
	srv, err := New(Config{Dir: t.TempDir(), Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	get := func(key sessionKey) (*session, error) {
		s, _, err := srv.sessions.get(key, func(tt *toolTable) (*eval.Interp, host.Host, error) {
			return srv.newSessionInterp(key.principal, srv.policy.For(key.principal, false), tt)
		}, srv.wireSession)
		return s, err
	}
	first := sessionKey{"agent:x", "a"}
	old, err := get(first)
	if err != nil {
		t.Fatal(err)
	}
	old.release()
	if reaped := srv.sessions.reap(time.Now().Add(time.Second), time.Nanosecond); len(reaped) != 1 {
		t.Fatalf("reaped %d sessions; want the idle one", len(reaped))
	}
	second := sessionKey{"agent:x", "b"}
	if s, err := get(second); err == nil {
		s.release()
		t.Fatal("a second session was created while the first was still closing; want the limit")
	} else if _, ok := err.(*sessionLimitError); !ok {
		t.Fatalf("refused with %T %v; want a session limit error", err, err)
	}
	old.close()
	srv.sessions.closed(first)
	s, err := get(second)
	if err != nil {
		t.Fatalf("after the close: %v", err)
	}
	s.release()
}
