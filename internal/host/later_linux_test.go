package host

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
)

// TestRunLeavesTailToLater: a Run under a Later returns its whole Result
// with the child's spent pipes and pidfd still open; Flush closes them
// and makes the next Run's pipes, which that Run takes. The Later holds
// one tail at most: each Run runs the tail before it, so a loop of runs
// keeps no more open than one run leaves; after Close nothing waits.
func TestRunLeavesTailToLater(t *testing.T) {
	sh := prog(t, "sh")
	h := NewOS(AllowAll)
	var l Later
	ctx := WithLater(context.Background(), &l)
	run := func() {
		t.Helper()
		res, err := h.Run(ctx, &Spawn{Argv: []string{sh, "-c", "echo out; echo err >&2; exit 3"}, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.Status == nil || *res.Status != 3 {
			t.Fatalf("stdout %q, stderr %q, status %v", res.Stdout, res.Stderr, res.Status)
		}
	}
	base := fdSnapshot(t)
	run()
	l.Flush() // /dev/null, opened once, and the spare pipes stay
	flushed := newFds(t, base)
	out, errp, ok := l.pipes()
	if !ok {
		t.Fatal("no spare pipes after a tail was flushed")
	}
	closeAll(out[:])
	closeAll(errp[:])
	l.Flush() // nothing pending: no new spares
	if _, _, ok := l.pipes(); ok {
		t.Fatal("spare pipes made by a Flush with no tail")
	}
	run() // makes its own pipes; its tail waits
	l.Flush()
	if n := newFds(t, base); n != flushed {
		t.Fatalf("%d descriptors open after a run and Flush, want %d", n, flushed)
	}
	run() // takes the spares
	pending := newFds(t, base)
	if pending == flushed {
		t.Fatal("no descriptor left to the Later by a run")
	}
	for range 20 {
		run()
	}
	if n := newFds(t, base); n != pending {
		t.Errorf("%d descriptors open after 21 runs, %d after one: the Later holds more than one tail", n, pending)
	}
	l.Close()
	closed := newFds(t, base)
	if closed >= pending {
		t.Errorf("%d descriptors open after Close, %d before: the tail or the spares stayed", closed, pending)
	}
	run() // after Close, nothing waits
	if n := newFds(t, base); n != closed {
		t.Errorf("%d descriptors open after Close, %d after a run under the closed Later", closed, n)
	}
}

// TestRunLaterInScopeReusesLeaf: in a scope with cgroups, a run's leaf goes
// back to the pool when its tail runs (the next run's start at the
// latest), so runs under a Later open no more descriptors than the first,
// and closing the scope after the last Flush closes them all.
func TestRunLaterInScopeReusesLeaf(t *testing.T) {
	tr := prog(t, "true")
	base := fdSnapshot(t)
	before := newFds(t, base)
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-hostlater"})
	t.Cleanup(m.Close)
	t.Logf("containment: %+v", m.Features())
	scope := m.NewScope()
	h := NewOS(AllowAll, WithProcesses(scope))
	var l Later
	ctx := WithLater(context.Background(), &l)
	if _, err := h.Run(ctx, &Spawn{Argv: []string{tr}}); err != nil {
		t.Fatal(err)
	}
	// One leaf, its tail pending: each run after takes the same leaf back
	// (a second leaf would keep descriptors of its own).
	warm := newFds(t, base)
	for range 20 {
		if _, err := h.Run(ctx, &Spawn{Argv: []string{tr}}); err != nil {
			t.Fatal(err)
		}
	}
	if after := newFds(t, base); after != warm {
		t.Errorf("%d descriptors open after one run, %d after 20 more: its leaf is not reused", warm, after)
	}
	l.Close()
	scope.Close()
	m.Close()
	if after := newFds(t, base); after > before+1 {
		t.Errorf("%d descriptors open before the scope, %d after it closed", before, after)
	}
}

// TestLaterFlushRunsSettleOnce: hold runs the tail it replaces, Flush the
// pending one, each once; a nil Later runs a tail at once.
func TestLaterFlushRunsSettleOnce(t *testing.T) {
	var l Later
	n := 0
	l.hold(nil, func() { n++ })
	l.hold(nil, func() { n += 10 })
	if n != 1 {
		t.Fatalf("after two holds %d, want the first tail run (1)", n)
	}
	l.Flush()
	l.Flush()
	if n != 11 {
		t.Fatalf("after Flush %d, want 11", n)
	}
	var none *Later
	none.hold(nil, func() { n += 100 })
	none.Flush()
	if n != 111 {
		t.Fatalf("nil Later: %d, want 111", n)
	}
}

// fdSnapshot is this process's open descriptors, each with what it
// names (readlink of /proc/self/fd/N: a pipe's inode, a path, ...).
func fdSnapshot(t *testing.T) map[int]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	fds := make(map[int]string, len(ents))
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || (strings.HasPrefix(target, "/proc/") && strings.HasSuffix(target, "/fd")) {
			continue // closed since the listing, or the listing's own directory
		}
		fds[n] = target
	}
	return fds
}

// newFds counts the descriptors open now that were not open, naming the
// same thing, in base. Unlike a count of all of them it does not move
// when the runtime closes something an earlier test left to a cleanup
// (an os.Process's pidfd, a file collected by the GC), which happened at
// random under -race in CI.
func newFds(t *testing.T, base map[int]string) int {
	t.Helper()
	n := 0
	for fd, target := range fdSnapshot(t) {
		if base[fd] != target {
			n++
		}
	}
	return n
}
