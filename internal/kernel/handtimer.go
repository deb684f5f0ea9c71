package kernel

import "time"

// The hand-over timer (lead.go) is armed once and left armed, not armed
// and stopped around every request: resetting a timer wakes the runtime's
// netpoller or an idle thread to look at the new deadline, and a stopped
// timer stays in the heap until its deadline, so a request that took
// microseconds paid a futex or an epoll wake-up and a context switch for
// it (about 0.45 futex and 0.35 epoll_pwait calls and 0.5 context switches
// a request, by perf stat of BenchmarkExecPure). Instead the leader notes
// when it started (leadSince) and arms the timer only if it is not armed;
// when the timer fires, handCheck hands the reading over if the request
// leading then has run for HandoffDelay, arms the timer for what remains
// if it has not, and leaves it disarmed when nothing leads. So a stream of
// short requests costs one timer firing per HandoffDelay at most, and a
// request that runs for HandoffDelay is still handed over once it has (the
// timer's own lateness aside), never before.

// monoEpoch is the origin of monoNow.
var monoEpoch = time.Now()

// monoNow is the time since monoEpoch on the monotonic clock.
func monoNow() int64 { return int64(time.Since(monoEpoch)) }

// armHandTimer arms the hand-over timer to fire after d unless it is
// armed already.
func (c *conn) armHandTimer(d time.Duration) {
	if c.handArmed.Load() || !c.handArmed.CompareAndSwap(false, true) {
		return
	}
	c.handTimer.Reset(d)
}

// handCheck runs when the hand-over timer fires.
func (c *conn) handCheck() {
	c.handArmed.Store(false)
	g := c.leadGen.Load()
	if g&1 == 0 {
		return // nothing leads; the next leader arms the timer
	}
	since := c.leadSince.Load()
	if c.leadGen.Load() != g {
		// The request that led when g was read ended meanwhile; whatever
		// leads now started just now.
		c.armHandTimer(HandoffDelay)
		return
	}
	// leadGen was g at both loads, and only the goroutine holding the
	// reading writes leadSince, before it makes leadGen odd: since is
	// when the request of generation g started.
	if ran := time.Duration(monoNow() - since); ran < HandoffDelay {
		c.armHandTimer(HandoffDelay - ran)
		return
	}
	c.handOverFrom(g)
}
