package contain

// reapPace decides, for the subreaper's loop (startReaper), when it
// listens for SIGCHLD and when it looks at the exited children again.
//
// Every exit of a child sends this process a SIGCHLD, and a reaper that
// listens for it is woken by each: the runtime's signal handler wakes the
// thread parked in os/signal's loop, which wakes another for the reaper's
// goroutine, whose peek (reapExited) mostly finds the child of ours that
// just exited, which its owner is about to reap, and re-arms the retry
// timer (a write to the poller's eventfd: a third thread woken). Those
// wake-ups land at the moment the owner's thread returns from its wait
// for the child, on a machine with few CPUs in front of it: the owner's
// answer waits for them (docs/performance.md, "Owner spawn: the
// seventeenth round").
//
// So after it takes a SIGCHLD the reaper stops listening and looks again
// when its retry timer fires, reapRetry later, taking any SIGCHLD that
// came meanwhile then (os/signal keeps one pending; a look reaps every
// exited orphan in front of ours, so one stands for any number). While
// signals keep coming within reapRetry of each other, as under a stream of
// spawns, the reaper wakes once a reapRetry on its timer instead of three
// threads at every child's exit; a period with none puts it back to
// listening. An orphan that exits meanwhile is reaped within reapRetry
// instead of at once; one behind a child of ours that its owner is slow
// to reap, as before, within reapWalkAfter retries.
type reapPace struct {
	gate walkGate
	// quiet: the retry timer is armed and SIGCHLD is taken only when it
	// fires.
	quiet bool
}

// listening reports whether the reaper takes SIGCHLD as it comes.
func (p *reapPace) listening() bool { return !p.quiet }

// signalled records a SIGCHLD taken while listening, after a look whose
// answer was blocked (reapExited). The reaper then arms the retry timer
// and stops listening until it fires.
func (p *reapPace) signalled(blocked bool) {
	if !blocked {
		p.gate.clear()
	}
	p.quiet = true
}

// retried records the retry timer's firing: pending, a SIGCHLD came since
// the timer was armed; blocked, the look made now found one of ours in
// front. It reports whether to read the process table now (walk) and
// whether to arm the timer again (again; otherwise the reaper listens).
func (p *reapPace) retried(pending, blocked bool) (walk, again bool) {
	switch {
	case !blocked:
		// Nothing of ours in front: whatever exited was reaped. Signals
		// still coming keep the reaper on its timer for another round.
		p.gate.clear()
		again = pending
	case pending:
		// A child of ours in front, and a SIGCHLD since: mostly a newer
		// child its owner reaps within the next round (uncounted, as a
		// SIGCHLD that found one of ours in front always was).
		again = true
	case !p.gate.blocked():
		again = true
	default:
		walk = true
	}
	p.quiet = again
	return walk, again
}
