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

// Precise only where it is needed (the twentieth round): a timer due
// within 1 ms, kept armed, makes the runtime's poller block with a
// timeout under the host's 4 ms tick after every answer, which on this
// project's VM arms and disarms the local APIC deadline (a VM exit each)
// on the client's wait, and its firing every ~1.2 ms wakes a thread. So a
// request that neither waits nor computes long (the usual exec) has the
// timer armed only HandoffFallback ahead; an exec arms it for HandoffDelay
// from its start where it is about to wait (leadWait, the evaluation's
// wait hook and its turn), a computing one hands over from its
// checkpoints (leadCheck), and every other method wants the precise timer
// from its start, as before (handPrecise).

// monoEpoch is the origin of monoNow.
var monoEpoch = time.Now()

// monoNow is the time since monoEpoch on the monotonic clock.
func monoNow() int64 { return int64(time.Since(monoEpoch)) }

// armHandIn arms the hand-over timer to fire within d, unless it is
// armed to fire by then already: a later deadline never pushes an earlier
// one back, and an earlier one replaces a later one.
func (c *conn) armHandIn(d time.Duration) {
	due := monoNow() + int64(d)
	if cur := c.handDue.Load(); cur != 0 && cur <= due {
		return // the usual case: no lock, no Reset
	}
	c.handMu.Lock()
	if cur := c.handDue.Load(); cur == 0 || due < cur {
		c.handDue.Store(due)
		c.handTimer.Reset(d)
	}
	c.handMu.Unlock()
}

// handKeepArmed is how long after a request started the hand-over timer
// is kept armed with nothing leading, so that the connection's next
// request finds it armed.
const handKeepArmed = 2 * HandoffFallback

// handPeriod is how far ahead the timer is armed for a request of
// generation g that has not said it waits: HandoffDelay for one that
// wants the precise hand-over (handPrecise), HandoffFallback for an exec
// that has not come to a wait (docs/kernel.md, "Requests and the reader").
func (c *conn) handPeriod(g uint64) time.Duration {
	if c.handPrecise.Load() == g {
		return HandoffDelay
	}
	return HandoffFallback
}

// handCheck runs when the hand-over timer fires.
func (c *conn) handCheck() {
	// Disarmed before anything is read: an arm that saw the deadline that
	// fired and left it (armHandIn) stored what it needs (leadSince,
	// handPrecise) before, and is read below.
	c.handMu.Lock()
	c.handDue.Store(0)
	c.handMu.Unlock()
	g, ran, ok := c.leadAge()
	switch {
	case g&1 == 0:
		// Nothing leads. A busy connection keeps the timer armed for its
		// next request, as far ahead as its last request wanted; a quiet
		// (or closed) one leaves it to the next leader.
		if time.Duration(monoNow()-c.leadSince.Load()) < handKeepArmed && (c.ctx == nil || c.ctx.Err() == nil) {
			c.armHandIn(c.handPeriod(g - 1))
		}
	case !ok:
		// The request that led when g was read ended meanwhile; whatever
		// leads now started just now (and armed what it wants).
		c.armHandIn(c.handPeriod(g + 2))
	case ran < c.handPeriod(g):
		c.armHandIn(c.handPeriod(g) - ran)
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
