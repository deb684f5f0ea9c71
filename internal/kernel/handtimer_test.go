package kernel

import (
	"context"
	"testing"
	"time"
)

// handTimerConn is a connection with just what handCheck touches: its
// idle channel buffered, so that a hand-over is seen without a follower.
func handTimerConn(t *testing.T) *conn {
	c := &conn{idle: make(chan struct{}, 1)}
	c.handTimer = time.AfterFunc(time.Hour, func() {})
	c.handTimer.Stop()
	t.Cleanup(func() { c.handTimer.Stop() })
	return c
}

// TestHandCheck: when the hand-over timer fires, a request that has led
// for less than HandoffDelay keeps the reading and the timer is armed
// again; one that has led for HandoffDelay loses the reading; with
// nothing leading the timer is armed again if a request started within
// handKeepArmed, and left disarmed if none did.
func TestHandCheck(t *testing.T) {
	c := handTimerConn(t)

	// Nothing leads, and nothing has for handKeepArmed: disarmed,
	// nothing handed over.
	c.leadSince.Store(monoNow() - int64(2*handKeepArmed))
	c.handArmed.Store(true)
	c.handCheck()
	if c.handArmed.Load() || len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("quiet connection: armed %v, hand-overs %d, leadGen %d; want disarmed, none, 0",
			c.handArmed.Load(), len(c.idle), c.leadGen.Load())
	}

	// Nothing leads, and a request started just now (and ended): the
	// timer is armed again for the connection's next request, nothing is
	// handed over.
	c.leadSince.Store(monoNow())
	c.handArmed.Store(true)
	c.handCheck()
	if !c.handArmed.Load() || len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("busy connection between requests: armed %v, hand-overs %d, leadGen %d; want armed, none, 0",
			c.handArmed.Load(), len(c.idle), c.leadGen.Load())
	}
	c.handTimer.Stop()

	// The same on a connection whose work was stopped: left disarmed.
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx = ctx
	cancel()
	c.handArmed.Store(true)
	c.handCheck()
	if c.handArmed.Load() {
		t.Fatal("closed connection: the timer was armed again")
	}
	c.ctx = nil

	// A request that started just now (the timer armed by an earlier
	// one): it keeps the reading, the timer is armed for what remains.
	c.leadSince.Store(monoNow())
	c.leadGen.Store(1)
	c.handArmed.Store(true)
	c.handCheck()
	if !c.handArmed.Load() || len(c.idle) != 0 || c.leadGen.Load() != 1 {
		t.Fatalf("young request: armed %v, hand-overs %d, leadGen %d; want armed, none, 1",
			c.handArmed.Load(), len(c.idle), c.leadGen.Load())
	}
	c.handTimer.Stop()

	// A request that has led for HandoffDelay: handed over.
	c.leadSince.Store(monoNow() - int64(2*HandoffDelay))
	c.handArmed.Store(true)
	c.handCheck()
	if len(c.idle) != 1 || c.leadGen.Load() != 2 {
		t.Fatalf("old request: hand-overs %d, leadGen %d; want 1, 2", len(c.idle), c.leadGen.Load())
	}
	if c.handArmed.Load() {
		t.Fatal("old request: the timer was armed again after the hand-over")
	}
}

// TestArmHandTimerOnce: arming an armed timer leaves its deadline alone,
// so a stream of short requests does not push it back.
func TestArmHandTimerOnce(t *testing.T) {
	fired := make(chan struct{}, 4)
	c := &conn{}
	c.handTimer = time.AfterFunc(time.Hour, func() { fired <- struct{}{} })
	c.handTimer.Stop()
	t.Cleanup(func() { c.handTimer.Stop() })
	c.armHandTimer(time.Millisecond)
	if !c.handArmed.Load() {
		t.Fatal("not armed")
	}
	c.armHandTimer(time.Hour) // ignored: armed already
	select {
	case <-fired:
	case <-time.After(time.Minute):
		t.Fatal("the timer armed for 1 ms never fired: a second arm pushed it back")
	}
}

// TestLeadCheck: a computing evaluation's look at the request leading
// (leadCheck) hands the reading over once that request has led for
// HandoffDelay, not before, and does nothing when nothing leads.
func TestLeadCheck(t *testing.T) {
	c := handTimerConn(t)

	// Nothing leads: nothing handed over.
	c.leadSince.Store(monoNow() - int64(2*HandoffDelay))
	c.leadCheck()
	if len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("nothing leading: hand-overs %d, leadGen %d; want none, 0", len(c.idle), c.leadGen.Load())
	}

	// A request that started just now keeps the reading.
	c.leadSince.Store(monoNow())
	c.leadGen.Store(1)
	c.leadCheck()
	if len(c.idle) != 0 || c.leadGen.Load() != 1 {
		t.Fatalf("young request: hand-overs %d, leadGen %d; want none, 1", len(c.idle), c.leadGen.Load())
	}

	// One that has led for HandoffDelay loses it, once.
	c.leadSince.Store(monoNow() - int64(2*HandoffDelay))
	c.leadCheck()
	c.leadCheck()
	if len(c.idle) != 1 || c.leadGen.Load() != 2 {
		t.Fatalf("old request: hand-overs %d, leadGen %d; want 1, 2", len(c.idle), c.leadGen.Load())
	}
}
