package kernel

import "runtime"

// Leading: a request that needs a running slot (exec, plan.apply, …) runs
// on the goroutine that read it, so a request and its answer cost no
// goroutine hand-off. While it runs nobody reads the connection; the
// reading is handed to another goroutine (the connection's idle follower,
// or a new one) as soon as more input is already buffered, or once the
// request has run for HandoffDelay, so that task.cancel, a reply to a
// client call and pipelined requests are still read while a long request
// runs. The goroutine that led a request and lost the reading meanwhile
// becomes the idle follower when it is done.
//
// Exactly one goroutine holds the reading at a time. leadGen is odd while
// the reading goroutine runs a request: whoever moves it from that odd
// value to the next even one, the leader when its request is done or
// handOver, decides whether the leader keeps the reading.

// lead runs a request that holds a running slot on the reading goroutine.
// It reports whether that goroutine still holds the reading afterwards.
func (c *conn) lead(m *method, call *call) bool {
	// Look at the reader before leadGen turns odd: a timer of an earlier
	// request that fires late may hand the reading over as soon as it is,
	// and the new reader fills the reader's buffer.
	pending := c.fr.Pending() > 0
	c.leadSince.Store(monoNow()) // before leadGen turns odd: see handCheck
	g := c.leadGen.Add(1)
	switch {
	case pending:
		c.handOver() // more input waits: read it meanwhile
	case m.armsWaits:
		// Only the fallback: the request arms the precise timer itself
		// where it is about to wait (leadWait).
		c.armHandIn(HandoffFallback)
	default:
		c.handPrecise.Store(g)
		c.armHandIn(HandoffDelay)
	}
	c.runSlot(m, call)
	// The timer is left armed: when it fires it looks at whichever
	// request leads then (handCheck).
	return c.leadGen.CompareAndSwap(g, g+1) // false: handed over
}

// handOver gives the reading to another goroutine if the reading
// goroutine is running a request; it does nothing otherwise (a timer that
// fired late).
func (c *conn) handOver() {
	c.handOverFrom(c.leadGen.Load())
}

// handOverFrom gives the reading to another goroutine if the reading
// goroutine is still running the request of generation g.
func (c *conn) handOverFrom(g uint64) {
	if g&1 == 0 || !c.leadGen.CompareAndSwap(g, g+1) {
		return
	}
	select {
	case c.idle <- struct{}{}: // the idle follower reads on
	default:
		go c.follow()
	}
}

// follow reads for the connection until the reading ends, when it hands
// the flush to serve, or until it loses the reading while it leads a
// request; then it waits as the connection's idle follower, while no other
// follower is idle, to be handed the reading again. Reusing it keeps its
// grown stack: a fresh goroutine for every hand-over would grow one again
// for the parser and evaluator.
func (c *conn) follow() {
	for {
		if flush, ended := c.readLoop(); ended {
			c.readEnd <- flush
			return
		}
		if !c.idleFollower.CompareAndSwap(false, true) {
			return
		}
		select {
		case <-c.idle:
			c.idleFollower.Store(false)
		case <-c.ctx.Done():
			c.idleFollower.Store(false)
			return
		}
	}
}

// leadWait is the wait hook of an exec's evaluation (eval.LeadHooks),
// also called before an exec waits for its turn: the request leading is
// about to wait, so the hand-over timer is armed to hand the reading over
// HandoffDelay after that request started, or the reading is handed over
// now if it has led that long. Like leadCheck it looks at whichever
// request leads (an async exec's wait arms the timer for it: harmless).
func (c *conn) leadWait() {
	g, ran, ok := c.leadAge()
	if !ok || c.handPrecise.Load() == g {
		return // nothing leads, or the timer is precise for it already
	}
	c.handPrecise.Store(g)
	if ran >= HandoffDelay {
		c.handOverFrom(g) // the new reader runs when this one parks
		return
	}
	c.armHandIn(HandoffDelay - ran)
}

// leadCheck is handCheck's look at the request leading, made by a
// computing evaluation from its checkpoints (eval.LeadHooks.Compute) rather
// than by the hand-over timer: while a request computes on the reading
// goroutine, the timer, due on that goroutine's processor with no thread
// waiting in the poller for it, runs only once the runtime preempts the
// request, 10 ms on (docs/performance.md, "exec "1 + 1" on the new
// machine"). It hands the reading over if the request leading has run for
// HandoffDelay, and then yields, so that the new reader runs at once. It
// may run on any goroutine (an async exec's evaluation
// looks at whichever request leads then, as the timer does).
func (c *conn) leadCheck() {
	g, ran, ok := c.leadAge()
	if !ok || ran < HandoffDelay {
		return
	}
	c.handOverFrom(g)
	if c.leadGen.Load() != g {
		// The new reader was made runnable here, behind this computing
		// goroutine: let it run (and read) now rather than wait for
		// another thread to take it.
		runtime.Gosched()
	}
}
