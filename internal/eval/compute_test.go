package eval

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// TestComputeHookWhileComputing: an evaluation that only computes calls
// its compute hook from its checkpoints (here the hook cancels it); the
// loop is cancelled after a minute regardless, and then the hook was
// never called.
func TestComputeHookWhileComputing(t *testing.T) {
	s := newSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	backstop := time.AfterFunc(time.Minute, cancel)
	defer backstop.Stop()
	var calls atomic.Int32
	ctx = WithComputeHook(ctx, func() {
		calls.Add(1)
		cancel()
	})
	_, err := s.in.Eval(ctx, "var i = 0\nwhile true { i += 1 }")
	if calls.Load() == 0 {
		t.Fatalf("the compute hook was never called while the loop ran (it ended with %v)", err)
	}
	var e *value.Error
	if !errors.As(err, &e) || e.Code != "cancelled" {
		t.Fatalf("want cancelled, got %v", err)
	}
}

// TestNoComputeHookNoClock: without a hook the checkpoints never read the
// clock for it.
func TestNoComputeHookNoClock(t *testing.T) {
	th := &thread{}
	for range 4 * computeHookTicks {
		th.computeCheck()
	}
	if th.hookTicks != 0 || th.hookSince != 0 {
		t.Fatalf("ticks %d, since %d; want 0, 0", th.hookTicks, th.hookSince)
	}
}
