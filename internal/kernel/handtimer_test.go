package kernel

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
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
	c.handDue.Store(1)
	c.handCheck()
	if (c.handDue.Load() != 0) || len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("quiet connection: armed %v, hand-overs %d, leadGen %d; want disarmed, none, 0",
			(c.handDue.Load() != 0), len(c.idle), c.leadGen.Load())
	}

	// Nothing leads, and a request started just now (and ended): the
	// timer is armed again for the connection's next request, nothing is
	// handed over.
	c.leadSince.Store(monoNow())
	c.handDue.Store(1)
	c.handCheck()
	if !(c.handDue.Load() != 0) || len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("busy connection between requests: armed %v, hand-overs %d, leadGen %d; want armed, none, 0",
			(c.handDue.Load() != 0), len(c.idle), c.leadGen.Load())
	}
	c.handTimer.Stop()

	// The same on a connection whose work was stopped: left disarmed.
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx = ctx
	cancel()
	c.handDue.Store(1)
	c.handCheck()
	if c.handDue.Load() != 0 {
		t.Fatal("closed connection: the timer was armed again")
	}
	c.ctx = nil

	// A request that started just now (the timer armed by an earlier
	// one): it keeps the reading, the timer is armed for what remains of
	// HandoffFallback (an exec not come to a wait) or of HandoffDelay (a
	// request that wants the precise timer).
	for _, precise := range []bool{false, true} {
		since := monoNow()
		c.leadSince.Store(since)
		c.leadGen.Store(1)
		c.handPrecise.Store(0)
		want := HandoffFallback
		if precise {
			c.handPrecise.Store(1)
			want = HandoffDelay
		}
		c.handDue.Store(1)
		c.handCheck()
		after := monoNow()
		due := c.handDue.Load()
		if due == 0 || len(c.idle) != 0 || c.leadGen.Load() != 1 {
			t.Fatalf("young request (precise %v): due %d, hand-overs %d, leadGen %d; want armed, none, 1",
				precise, due, len(c.idle), c.leadGen.Load())
		}
		if due > since+int64(want)+(after-since) || due < since+int64(want) {
			t.Fatalf("young request (precise %v): due %v after it started; want %v", precise, time.Duration(due-since), want)
		}
		c.handTimer.Stop()
		c.handDue.Store(0)
	}
	c.handPrecise.Store(0)

	// A request that wants the precise timer and has led for
	// HandoffDelay, and an exec that has not said it waits and has led
	// for HandoffFallback: handed over. (One that has led for HandoffDelay
	// only keeps the reading, the timer armed for the rest.)
	c.leadSince.Store(monoNow() - int64(2*HandoffDelay))
	c.handDue.Store(1)
	c.handCheck()
	if c.handDue.Load() == 0 || len(c.idle) != 0 || c.leadGen.Load() != 1 {
		t.Fatalf("exec led for 2 ms: due %d, hand-overs %d, leadGen %d; want armed, none, 1",
			c.handDue.Load(), len(c.idle), c.leadGen.Load())
	}
	c.handTimer.Stop()
	for _, tc := range []struct {
		name    string
		g       uint64
		precise bool
		led     time.Duration
	}{
		{"precise request", 1, true, 2 * HandoffDelay},
		{"exec", 3, false, 2 * HandoffFallback},
	} {
		c.leadGen.Store(tc.g)
		if tc.precise {
			c.handPrecise.Store(tc.g)
		}
		c.leadSince.Store(monoNow() - int64(tc.led))
		c.handDue.Store(1)
		c.handCheck()
		if len(c.idle) != 1 || c.leadGen.Load() != tc.g+1 {
			t.Fatalf("old %s: hand-overs %d, leadGen %d; want 1, %d", tc.name, len(c.idle), c.leadGen.Load(), tc.g+1)
		}
		if c.handDue.Load() != 0 {
			t.Fatalf("old %s: the timer was armed again after the hand-over", tc.name)
		}
		<-c.idle
	}
}

// TestArmHandTimerOnce: arming an armed timer for later leaves its
// deadline alone, so a stream of short requests does not push it back.
func TestArmHandTimerOnce(t *testing.T) {
	fired := make(chan struct{}, 4)
	c := &conn{}
	c.handTimer = time.AfterFunc(time.Hour, func() { fired <- struct{}{} })
	c.handTimer.Stop()
	t.Cleanup(func() { c.handTimer.Stop() })
	c.armHandIn(time.Millisecond)
	if !(c.handDue.Load() != 0) {
		t.Fatal("not armed")
	}
	c.armHandIn(time.Hour) // ignored: armed for earlier already
	select {
	case <-fired:
	case <-time.After(time.Minute):
		t.Fatal("the timer armed for 1 ms never fired: a second arm pushed it back")
	}
}

// TestArmHandEarlier: arming for an earlier deadline than the armed one
// replaces it (an exec about to wait, with only the fallback armed).
func TestArmHandEarlier(t *testing.T) {
	fired := make(chan struct{}, 4)
	c := &conn{}
	c.handTimer = time.AfterFunc(time.Hour, func() { fired <- struct{}{} })
	c.handTimer.Stop()
	t.Cleanup(func() { c.handTimer.Stop() })
	c.armHandIn(time.Hour)
	c.armHandIn(time.Millisecond)
	select {
	case <-fired:
	case <-time.After(time.Minute):
		t.Fatal("the timer armed for an hour and then for 1 ms never fired")
	}
}

// TestLeadWait: the wait hook of an exec's evaluation (leadWait) arms the
// timer to fire HandoffDelay after the request leading started, over the
// fallback a leading exec starts with, marks the request precise for
// handCheck, hands the reading over at once if the request has led for
// HandoffDelay already, and does nothing when nothing leads.
func TestLeadWait(t *testing.T) {
	c := handTimerConn(t)

	// Nothing leads: nothing armed, nothing handed over.
	c.leadSince.Store(monoNow())
	c.leadWait()
	if c.handDue.Load() != 0 || len(c.idle) != 0 || c.leadGen.Load() != 0 {
		t.Fatalf("nothing leading: due %d, hand-overs %d, leadGen %d; want 0, none, 0",
			c.handDue.Load(), len(c.idle), c.leadGen.Load())
	}

	// An exec that started just now with the fallback armed (as lead arms
	// it), about to wait: armed for HandoffDelay from its start.
	since := monoNow()
	c.leadSince.Store(since)
	c.leadGen.Store(1)
	c.armHandIn(HandoffFallback)
	c.leadWait()
	after := monoNow()
	due := c.handDue.Load()
	if due < since+int64(HandoffDelay) || due > since+int64(HandoffDelay)+(after-since) {
		t.Fatalf("young exec about to wait: due %v after it started; want %v", time.Duration(due-since), HandoffDelay)
	}
	if c.handPrecise.Load() != 1 || len(c.idle) != 0 || c.leadGen.Load() != 1 {
		t.Fatalf("young exec about to wait: precise %d, hand-overs %d, leadGen %d; want 1, none, 1",
			c.handPrecise.Load(), len(c.idle), c.leadGen.Load())
	}
	c.handTimer.Stop()
	c.handDue.Store(0)

	// One that has led for HandoffDelay: handed over at once.
	c.leadSince.Store(monoNow() - int64(2*HandoffDelay))
	c.leadGen.Store(3)
	c.leadWait()
	c.leadWait()
	if len(c.idle) != 1 || c.leadGen.Load() != 4 {
		t.Fatalf("old exec about to wait: hand-overs %d, leadGen %d; want 1, 4", len(c.idle), c.leadGen.Load())
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

// TestTurnWaitCallsWaitHook: an exec that must wait for its turn calls its
// evaluation's wait hook first (so the reading is handed over in time),
// and one whose turn has come does not. Here the hook ends the turn
// before; without the call the wait lasts until a one-minute backstop.
func TestTurnWaitCallsWaitHook(t *testing.T) {
	var ts turnstile
	first := ts.enter()
	var waits atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	backstop := time.AfterFunc(time.Minute, cancel)
	defer backstop.Stop()
	ctx = eval.WithLeadHooks(ctx, &eval.LeadHooks{Wait: func() {
		waits.Add(1)
		first.leave()
	}})
	if err := first.wait(ctx); err != nil || waits.Load() != 0 {
		t.Fatalf("first turn: err %v, wait hook called %d times; want nil, 0", err, waits.Load())
	}
	second := ts.enter()
	err := second.wait(ctx)
	second.leave()
	if err != nil || waits.Load() != 1 {
		t.Fatalf("second turn: err %v, wait hook called %d times; want nil, 1", err, waits.Load())
	}
}
