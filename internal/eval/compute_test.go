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
	ctx = WithLeadHooks(ctx, &LeadHooks{Compute: func() {
		calls.Add(1)
		cancel()
	}})
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

// TestWaitHookBeforeWait: an evaluation given a wait hook calls it before
// a wait that can block (here `sleep`, which gives the session lock up),
// and one that only computes never calls it.
func TestWaitHookBeforeWait(t *testing.T) {
	s := newSession(t)
	var waits atomic.Int32
	ctx := WithLeadHooks(context.Background(), &LeadHooks{Wait: func() { waits.Add(1) }})
	if _, err := s.in.Eval(ctx, "1 + 1"); err != nil {
		t.Fatal(err)
	}
	if n := waits.Load(); n != 0 {
		t.Fatalf("`1 + 1` called the wait hook %d times; want 0", n)
	}
	if _, err := s.in.Eval(ctx, "sleep 1ms"); err != nil {
		t.Fatal(err)
	}
	if n := waits.Load(); n == 0 {
		t.Fatal("`sleep 1ms` never called the wait hook before it waited")
	}
}

// TestWaitHookOnLockWait: an evaluation that has to wait for the session
// lock (another holds it) calls its wait hook before it waits. Here the
// hook lets the lock go; without the call the evaluation waits until a
// one-minute backstop.
func TestWaitHookOnLockWait(t *testing.T) {
	s := newSession(t)
	release, err := s.in.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var waits atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	backstop := time.AfterFunc(time.Minute, cancel)
	defer backstop.Stop()
	ctx = WithLeadHooks(ctx, &LeadHooks{Wait: func() {
		if waits.Add(1) == 1 {
			release()
		}
	}})
	if _, err := s.in.Eval(ctx, "1 + 1"); err != nil {
		t.Fatalf("the evaluation waiting for the lock: %v (wait hook called %d times)", err, waits.Load())
	}
	if n := waits.Load(); n != 1 {
		t.Fatalf("wait hook called %d times; want 1", n)
	}
}

// TestBeforeWait: BeforeWait calls the context's wait hook and does
// nothing without one.
func TestBeforeWait(t *testing.T) {
	BeforeWait(context.Background())
	BeforeWait(WithLeadHooks(context.Background(), &LeadHooks{Compute: func() { t.Fatal("the compute hook was called") }}))
	n := 0
	BeforeWait(WithLeadHooks(context.Background(), &LeadHooks{Wait: func() { n++ }}))
	if n != 1 {
		t.Fatalf("wait hook called %d times; want 1", n)
	}
}
