package journal

// The background applier applies one gathered batch at a time.
//
// It used to drain everything pending (applyPending) each time its
// timer fired: while a batch of a few hundred rows was being applied
// under load, the next rows arrived, and the drain applied those at
// once as a batch of their own, then the few that arrived during that
// one, and so on down to a handful. Under 32 connections (`exec "1 + 1"`,
// BenchmarkThroughput32) the median batch was 115 rows and a tenth of
// them held 10 or fewer, where every commit writes a WAL frame for
// each leaf the batch touched (with 32 sessions, one per session in
// each session-keyed index) however few its rows: about two pwrite(2)
// calls a request. Now the rows that arrive while a batch is applied
// gather for ApplyDelay in their turn, unless a full batch (ApplyBatch)
// is already waiting or writers are held back by MaxPendingBytes (they
// send on now, as before). Reads still apply everything first (sync),
// and a row is in the intent log before its writer returns, so neither
// what a read sees nor durability changes: only how the background work
// is cut into transactions.

// applyGathered applies, in one transaction, the oldest pending writes
// (at most ApplyBatch), and reports how many are still pending after it.
func (d *DB) applyGathered() (left int, err error) {
	a := d.ap
	a.amu.Lock()
	defer a.amu.Unlock()
	ops := a.take()
	if len(ops) > 0 {
		if err := d.applyTaken(ops); err != nil {
			return 0, err
		}
	}
	a.mu.Lock()
	left = len(a.pending)
	a.mu.Unlock()
	return left, nil
}

// gatherNext starts the next batch's wait after a background batch that
// left writes pending: it reports true when a full batch is waiting
// (applied at once), else kicks the applier so that what is pending
// gathers for ApplyDelay.
func (a *applier) gatherNext(left int) (full bool) {
	a.mu.Lock()
	full = left >= ApplyBatch || a.fullLocked()
	a.mu.Unlock()
	if full {
		return true
	}
	if left > 0 {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
	return false
}
