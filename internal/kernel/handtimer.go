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
// if it has not, and when nothing leads arms it again while a request
// started within handKeepArmed (the connection is busy), leaving it
// disarmed once the connection has been quiet that long. So a stream of
// short requests costs one timer firing per HandoffDelay, and a request
// that runs for HandoffDelay is still handed over once it has (the timer's
// own lateness aside), never before.
//
// Arming in the request was still on its path: a timer added to an empty
// heap wakes the netpoller or, when no thread waits in it (the one that
// did woke with the request), starts a thread (futex) to wait for the new
// deadline. With one client that was one request in six or seven paying a
// futex wake before it ran (sys_enter_futex between the request's
// recvfrom and the log's write, perf record of BenchmarkExecPure). Armed
// again by the firing instead, the wake is the timer goroutine's, off the
// requests' path; only the first request after a quiet spell arms it.

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

// handKeepArmed is how long after a request started the hand-over timer
// is kept armed with nothing leading, so that the connection's next
// request finds it armed.
const handKeepArmed = 4 * HandoffDelay

// handCheck runs when the hand-over timer fires.
func (c *conn) handCheck() {
	c.handArmed.Store(false)
	g, ran, ok := c.leadAge()
	switch {
	case g&1 == 0:
		// Nothing leads. A busy connection keeps the timer armed for its
		// next request; a quiet (or closed) one leaves it to the next
		// leader.
		if time.Duration(monoNow()-c.leadSince.Load()) < handKeepArmed && (c.ctx == nil || c.ctx.Err() == nil) {
			c.armHandTimer(HandoffDelay)
		}
	case !ok:
		// The request that led when g was read ended meanwhile; whatever
		// leads now started just now.
		c.armHandTimer(HandoffDelay)
	case ran < HandoffDelay:
		c.armHandTimer(HandoffDelay - ran)
	default:
		c.handOverFrom(g)
	}
}

// leadAge reads the generation g of the request leading and how long it
// has run. ok is false when nothing leads (g even) or when the request
// that led at the first load ended before the second.
func (c *conn) leadAge() (g uint64, ran time.Duration, ok bool) {
	g = c.leadGen.Load()
	if g&1 == 0 {
		return g, 0, false
	}
	since := c.leadSince.Load()
	if c.leadGen.Load() != g {
		return g, 0, false
	}
	// leadGen was g at both loads, and only the goroutine holding the
	// reading writes leadSince, before it makes leadGen odd: since is
	// when the request of generation g started.
	return g, time.Duration(monoNow() - since), true
}
