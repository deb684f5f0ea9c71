package host

import (
	"context"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
	"golang.org/x/sys/unix"
)

// pendTail gives l a tail to flush: one descriptor of its own.
func pendTail(t *testing.T, l *Later) {
	t.Helper()
	fd, err := unix.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	l.hold([]int{fd}, nil)
}

// TestLaterSpareCharged: a Later's spare pipes are charged to its idle
// budget while they wait; a Later that finds the budget spent makes none
// (its next Run makes its own); taking the spares, and Close, give the
// charge back.
func TestLaterSpareCharged(t *testing.T) {
	b := contain.NewIdleFDs(spareFDs + 2) // one pair of spares, not two
	var l1, l2 Later
	l1.ChargeTo(b)
	l2.ChargeTo(b)
	pendTail(t, &l1)
	l1.Flush()
	if b.Used() != spareFDs {
		t.Fatalf("%d charged with one Later's spares made, want %d", b.Used(), spareFDs)
	}
	pendTail(t, &l2)
	l2.Flush()
	if _, _, ok := l2.pipes(); ok {
		t.Fatal("a Later made spare pipes past a spent budget")
	}
	out, errp, ok := l1.pipes()
	if !ok {
		t.Fatal("no spares in the Later the budget had room for")
	}
	closeAll(out[:])
	closeAll(errp[:])
	if b.Used() != 0 {
		t.Fatalf("%d charged after the spares were taken", b.Used())
	}
	pendTail(t, &l2)
	l2.Flush()
	if b.Used() != spareFDs {
		t.Fatalf("%d charged once room was made, want %d", b.Used(), spareFDs)
	}
	l2.Close()
	l1.Close()
	if b.Used() != 0 {
		t.Fatalf("%d charged after both Laters closed", b.Used())
	}
	pendTail(t, &l1)
	l1.Flush()
	if b.Used() != 0 {
		t.Fatal("a closed Later made spares")
	}
	// A Later charged elsewhere closes the spares it made before.
	var l3 Later
	l3.ChargeTo(b)
	pendTail(t, &l3)
	l3.Flush()
	l3.ChargeTo(nil)
	if b.Used() != 0 {
		t.Fatalf("%d still charged after the Later was charged elsewhere", b.Used())
	}
	l3.Close()
}

// TestLaterSpareChargedRuns: sessions' worth of Laters sharing a small
// budget run spawns from many goroutines at once, each Flushing after its
// Run as the kernel does after an answer: every Run succeeds (a Later
// without spares makes its pipes), the charge never passes the budget,
// and once every Later is closed nothing is charged or left open. Run
// with -race.
func TestLaterSpareChargedRuns(t *testing.T) {
	tr := prog(t, "true")
	base := fdSnapshot(t)
	h := NewOS(AllowAll)
	h.Run(context.Background(), &Spawn{Argv: []string{tr}}) // /dev/null, opened once
	opened := newFds(t, base)
	b := contain.NewIdleFDs(2*spareFDs + 1)
	laters := make([]Later, 8)
	var wg sync.WaitGroup
	errs := make(chan error, len(laters))
	for i := range laters {
		l := &laters[i]
		l.ChargeTo(b)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := WithLater(context.Background(), l)
			for range 25 {
				if _, err := h.Run(ctx, &Spawn{Argv: []string{tr}}); err != nil {
					errs <- err
					return
				}
				l.Flush()
				if u := b.Used(); u > b.Limit() {
					errs <- errOver
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if u := b.Used(); u == 0 || u > 2*spareFDs {
		t.Errorf("%d charged after the runs, want one or two Laters' spares", u)
	}
	for i := range laters {
		laters[i].Close()
	}
	if b.Used() != 0 {
		t.Errorf("%d charged after every Later closed", b.Used())
	}
	if n := newFds(t, base); n > opened {
		t.Errorf("%d descriptors open after every Later closed, %d before the runs", n, opened)
	}
}

type overError struct{}

func (overError) Error() string { return "idle budget passed its limit" }

var errOver error = overError{}
