package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// applier copies logged writes into SQLite (see log.go): in the
// background, a batch at a time, ApplyDelay after the first write of a
// batch (or at once when ApplyBatch writes wait), and on demand before
// every read, so a read always sees every write that returned before it.
type applier struct {
	// mu guards pending and pendingBytes; room is signalled when the
	// applier takes a batch.
	mu           sync.Mutex
	room         *sync.Cond
	pending      []*logOp
	pendingBytes int64
	// batchBytes and pendingCap are the byte bounds of a batch and of the
	// pending writes (SetWALBound, wal.go): 0 and MaxPendingBytes unless
	// a disk budget lowered them.
	batchBytes int64
	pendingCap int64

	// amu serialises batches (and every other use of the write
	// connection, such as allocating an effect bit, and Prune).
	amu sync.Mutex

	appended atomic.Uint64 // highest LSN appended to the log
	applied  atomic.Uint64 // highest LSN committed to SQLite

	// err is the last batch's failure (nil after a batch succeeds).
	errMu sync.Mutex
	err   error

	kick chan struct{} // a batch has started waiting
	now  chan struct{} // a batch is full
	stop chan struct{}
	done chan struct{}
}

func newApplier() *applier {
	a := &applier{
		pendingCap: MaxPendingBytes,
		kick:       make(chan struct{}, 1),
		now:        make(chan struct{}, 1),
		stop:       make(chan struct{}),
		done:       make(chan struct{}),
	}
	a.room = sync.NewCond(&a.mu)
	return a
}

// waitRoom waits while the pending writes and n more bytes would pass
// MaxPendingBytes (pendingCap): the applier has fallen behind, and writers slow to its
// pace rather than grow memory. It fails, rather than wait, while batches
// are failing (the database cannot take writes): the write is refused
// before it is logged. Call with the DB's wmu held.
func (a *applier) waitRoom(n int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.pendingBytes > 0 && a.pendingBytes+n > a.pendingCap {
		if err := a.lastErr(); err != nil {
			return fmt.Errorf("journal: writes are not being applied: %w", err)
		}
		select {
		case a.now <- struct{}{}:
		default:
		}
		a.room.Wait()
	}
	return nil
}

// enqueue adds op (appended to the log as LSN op.LSN) to the pending
// batch. Call with the DB's wmu held, after waitRoom, so LSNs enter in
// order.
func (a *applier) enqueue(op *logOp) {
	a.mu.Lock()
	a.pending = append(a.pending, op)
	a.pendingBytes += op.size()
	count := len(a.pending)
	full := a.fullLocked()
	a.mu.Unlock()
	a.appended.Store(op.LSN)
	if count == 1 {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
	if full {
		select {
		case a.now <- struct{}{}:
		default:
		}
	}
}

// fullLocked reports whether a whole batch is pending: ApplyBatch
// writes, or batchBytes of them when set. Call with mu held.
func (a *applier) fullLocked() bool {
	return len(a.pending) >= ApplyBatch || a.batchBytes > 0 && a.pendingBytes >= a.batchBytes
}

// take removes and returns the oldest pending writes, at most
// ApplyBatch of them (one transaction's worth: a bigger one would hold
// more of SQLite's dirty pages in memory at once), and, when batchBytes
// is set, no more than the first that reach it.
func (a *applier) take() []*logOp {
	a.mu.Lock()
	n := min(len(a.pending), ApplyBatch)
	var freed int64
	for i, op := range a.pending[:n] {
		if a.batchBytes > 0 && i > 0 && freed >= a.batchBytes {
			n = i
			break
		}
		freed += op.size()
	}
	ops := a.pending[:n:n]
	if n == len(a.pending) {
		a.pending = nil
	} else {
		a.pending = append([]*logOp(nil), a.pending[n:]...)
	}
	a.pendingBytes -= freed
	a.room.Broadcast()
	a.mu.Unlock()
	return ops
}

// putBack returns a failed batch to the front of the queue.
func (a *applier) putBack(ops []*logOp) {
	a.mu.Lock()
	var n int64
	for _, op := range ops {
		n += op.size()
	}
	a.pending = append(ops, a.pending...)
	a.pendingBytes += n
	a.mu.Unlock()
}

func (a *applier) setErr(err error) {
	a.errMu.Lock()
	a.err = err
	a.errMu.Unlock()
}

func (a *applier) lastErr() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

// run is the background applier: it waits for a batch to start, lets it
// fill for ApplyDelay (or until it is full), and applies it; writes that
// arrived meanwhile start the next batch's wait (applygather.go).
func (d *DB) runApplier() {
	a := d.ap
	defer close(a.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	retry := ApplyDelay
	full := false // a full batch was left waiting by the last one
	for {
		if full {
			select {
			case <-a.stop:
				return
			default:
			}
		} else {
			select {
			case <-a.stop:
				return
			case <-a.kick:
			case <-a.now:
			}
			timer.Reset(ApplyDelay)
			select {
			case <-a.stop:
				timer.Stop()
				return
			case <-timer.C:
			case <-a.now:
				timer.Stop()
			}
		}
		full = false
		left, err := d.applyGathered() // applygather.go: one batch, not a drain
		if err != nil {
			// Keep the writes (they are in the log too) and try again,
			// backing off, until a batch goes through.
			select {
			case <-a.stop:
				return
			case <-time.After(retry):
			}
			retry = min(retry*2, time.Second)
			select {
			case a.kick <- struct{}{}:
			default:
			}
			continue
		}
		retry = ApplyDelay
		full = a.gatherNext(left)
	}
}

// sync applies every write appended so far, if the applier has not yet:
// reads call it first, so they see every write that returned before them.
func (d *DB) sync() error {
	a := d.ap
	target := a.appended.Load()
	if a.applied.Load() >= target {
		return nil
	}
	if err := d.applyUpTo(target); err != nil {
		return err
	}
	if a.applied.Load() < target {
		if err := a.lastErr(); err != nil {
			return err
		}
		return fmt.Errorf("journal: writes up to %d not applied", target)
	}
	return nil
}

// applyPending applies what is pending, a transaction per ApplyBatch
// writes.
func (d *DB) applyPending() error { return d.applyUpTo(0) }

// applyUpTo applies pending writes, a transaction per ApplyBatch writes,
// until the write numbered target is applied (0: until none is pending).
// A read waits for the writes that returned before it, not for those that
// keep arriving after: under a flood, draining until none was pending
// could keep a reader (the disk budget's check) applying batch after
// batch while the background applier, locked out, never ran.
func (d *DB) applyUpTo(target uint64) error {
	a := d.ap
	a.amu.Lock()
	defer a.amu.Unlock()
	for target == 0 || a.applied.Load() < target {
		ops := a.take()
		if len(ops) == 0 {
			return nil
		}
		if err := d.applyTaken(ops); err != nil {
			return err
		}
	}
	return nil
}

// applyTaken applies ops taken off the queue (applyOps); when that fails,
// they go back to its front, the error is kept for the writers and the
// writers waiting for room are woken to see it. Call with amu held.
func (d *DB) applyTaken(ops []*logOp) error {
	a := d.ap
	if err := d.applyOps(ops); err != nil {
		a.putBack(ops)
		a.setErr(err)
		a.mu.Lock()
		a.room.Broadcast()
		a.mu.Unlock()
		return err
	}
	a.setErr(nil)
	return nil
}

// applyOps writes ops to SQLite in one transaction, with the LSN reached.
// Call with amu held. A write SQL refuses as a constraint violation (it
// cannot happen: writes are checked before they are logged) is skipped and
// counted in Skipped, rather than blocking every write after it; any other
// failure rolls the batch back. The batch runs on the write connection's
// driver connection (rawStmts).
func (d *DB) applyOps(ops []*logOp) error {
	err := d.w.Raw(func(any) error { return d.applyRaw(ops) })
	if err != nil {
		return fmt.Errorf("journal: applying writes: %w", err)
	}
	last := ops[len(ops)-1].LSN
	d.ap.applied.Store(last)
	d.wrote(len(ops))
	d.boundWAL() // wal.go: truncated past MaxWALBytes
	return nil
}

// applyRaw is applyOps inside the raw call: the batch's new rows by
// multi-row inserts (applyMulti), or, when SQLite refuses one of them,
// a row at a time (applyRows).
func (d *DB) applyRaw(ops []*logOp) error {
	if !d.rowAtATime {
		if err := d.applyMulti(ops); !errors.Is(err, errMultiRefused) {
			return err
		}
	}
	return d.applyRows(ops)
}

// applyRows applies ops a row at a time, skipping (and counting) a write
// SQLite refuses as a constraint violation.
func (d *DB) applyRows(ops []*logOp) error {
	r := d.raw
	if err := r.exec(r.begin); err != nil {
		return err
	}
	fail := func(err error) error {
		_ = r.exec(r.rollback)
		return err
	}
	merges, absorbed := mergeFinishes(ops)
	for i, op := range ops {
		if absorbed[i] {
			continue
		}
		if m, ok := merges[i]; ok {
			err := d.applyOp(m.row)
			if err == nil {
				continue
			}
			if !isConstraint(err) {
				return fail(err)
			}
			// Refused whole: apply the two as logged, the finish in its place.
			absorbed[m.finish] = false
		}
		if err := d.applyOp(op); err != nil {
			if !isConstraint(err) {
				return fail(err)
			}
			d.skipped.Add(1)
		}
	}
	if err := r.exec(r.setLSN, int64(ops[len(ops)-1].LSN)); err != nil {
		return fail(err)
	}
	if err := r.exec(r.commit); err != nil {
		return fail(err)
	}
	return nil
}

// finishMerge is a start row with its finish applied: the row to insert
// in the start row's place, and the index in the batch of the finish it
// absorbed.
type finishMerge struct {
	row    *logOp
	finish int
}

// mergeFinishes pairs each unfinished row a batch inserts with the first
// finish of it later in the same batch, so that the row is inserted once,
// finished. Inserting then finishing costs an insert, a read of the row,
// an update of it and of every index the finish changes; a command's start
// and finish rows most often share a batch (ApplyDelay is longer than most
// commands), and the finish was about a third of the applier's work on an
// owner spawn. The rows written are the same (TestApplyMergedFinishes).
// ops are not changed: a batch that fails is put back as logged.
func mergeFinishes(ops []*logOp) (map[int]finishMerge, map[int]bool) {
	var open map[int64]int
	var merges map[int]finishMerge
	var absorbed map[int]bool
	for i, op := range ops {
		if !op.Finish {
			if !op.Finished {
				if open == nil {
					open = map[int64]int{}
				}
				open[op.ID] = i
			}
			continue
		}
		j, ok := open[op.ID]
		if !ok {
			continue
		}
		delete(open, op.ID)
		if merges == nil {
			merges, absorbed = map[int]finishMerge{}, map[int]bool{}
		}
		merges[j] = finishMerge{row: finishedRow(ops[j], op), finish: i}
		absorbed[i] = true
	}
	return merges, absorbed
}

// finishedRow is the insert ins with the finish fin applied, as
// applyFinish applies it to the row ins wrote.
func finishedRow(ins, fin *logOp) *logOp {
	m := *ins
	m.Finished = true
	m.FinishNS, m.OK, m.Status, m.Verdict, m.Opaque = fin.FinishNS, fin.OK, fin.Status, fin.Verdict, fin.Opaque
	m.RefN, m.Code, m.Seq, m.TSeq, m.PSeq = fin.RefN, fin.Code, fin.Seq, fin.TSeq, fin.PSeq
	if fin.Outputs != nil {
		m.Outputs = fin.Outputs
	}
	if fin.SetEffects {
		m.Effects, m.Mask = fin.Effects, fin.Mask
	}
	return &m
}

func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint")
}

// errNoOpenRow is a finish whose row is not open in the database (it
// cannot happen: Finish checks before it logs); applyOps skips it.
var errNoOpenRow = errors.New("journal: finish of a row that is not open (constraint)")

// errNoParent is an insert whose parent row does not exist (it cannot
// happen); applyRows skips it.
var errNoParent = errors.New("journal: insert of a row whose parent does not exist (constraint)")

// applyOp runs op's statement on the write connection (inside a raw
// call).
func (d *DB) applyOp(op *logOp) error {
	if op.Finish {
		return d.applyFinish(op)
	}
	outs := opOutputs(op)
	r := d.raw
	if op.Parent != 0 {
		// The parent key is checked at the commit (migration 12): a row
		// whose parent is missing (it cannot happen: Begin reads the
		// parent before it logs) is refused here, so that the batch's
		// commit does not fail on it.
		ok, err := r.hasRowID(op.Parent)
		if err != nil {
			return err
		}
		if !ok {
			return errNoParent
		}
	}
	if err := r.exec(r.ins, op.ID, op.Kind, nullID(op.Parent), op.Session, op.Principal, op.StartNS, op.Head,
		op.Mask, b01(op.OK), b01(op.Finished), nullID(op.RefN), nullSeq(op.Seq), nullSeq(op.TSeq), nullSeq(op.PSeq),
		nullID(op.PID), packOp(op, outs)); err != nil {
		return err
	}
	return d.insertOutputs(op.ID, outs)
}

// insertOutputs writes the outputs table's rows of entry id from its
// outputs JSON (none for "[]"): what migration 7's dropped triggers did
// with json_each, one single-row insert per output. This is the
// row-at-a-time path; a batch's outputs rows otherwise go 64 to a
// statement (applymulti.go).
func (d *DB) insertOutputs(id int64, outs string) error {
	if outs == "[]" {
		return nil
	}
	list, err := decodeOutputs(outs)
	if err != nil {
		return fmt.Errorf("journal: outputs of %d: %w", id, err)
	}
	r := d.raw
	for i, o := range list {
		if err := r.exec(r.insOut, id, int64(i), o.Kind, o.Hash, o.Len); err != nil {
			return err
		}
	}
	return nil
}

// applyFinish reads the open row op finishes and writes it back finished.
func (d *DB) applyFinish(op *logOp) error {
	r := d.raw
	packed, found, err := r.openRow(op.ID)
	if err != nil {
		return err
	}
	if !found {
		return errNoOpenRow
	}
	var e Entry
	mask, outs, err := unpackRow(packed, &e, new(int))
	if err != nil {
		return err
	}
	// New outputs replace the row's in the outputs table too (the
	// packed text, read above, says which it has).
	newOuts := op.Outputs != nil && string(op.Outputs) != outs
	if newOuts && outs != "[]" {
		if err := r.exec(r.delOuts, op.ID); err != nil {
			return err
		}
	}
	if op.Outputs != nil {
		outs = string(op.Outputs)
	}
	if op.SetEffects {
		e.Effects, mask = op.Effects, op.Mask
	}
	e.FinishNS, e.Finished, e.OK, e.Status, e.Verdict, e.Opaque = op.FinishNS, true, op.OK, op.Status, op.Verdict, op.Opaque
	e.RefN, e.Code, e.Seq, e.TSeq, e.PSeq = op.RefN, op.Code, op.Seq, op.TSeq, op.PSeq
	if err := r.exec(r.fin, b01(op.OK), mask, nullID(op.RefN), nullSeq(op.Seq), nullSeq(op.TSeq), nullSeq(op.PSeq),
		packEntry(&e, mask, outs), op.ID); err != nil {
		return err
	}
	if !newOuts {
		return nil
	}
	return d.insertOutputs(op.ID, outs)
}

// recover applies what the log holds beyond the database's LSN (writes
// that returned before a crash, not yet applied), then empties the log.
func (d *DB) recoverLog() error {
	var applied int64
	if err := d.db.QueryRow(`SELECT applied_lsn FROM journal_log WHERE id = 1`).Scan(&applied); err != nil {
		return fmt.Errorf("journal: reading the applied log position: %w", err)
	}
	ops, err := d.log.replay(uint64(applied))
	if err != nil {
		return err
	}
	last := uint64(applied)
	recovered := len(ops)
	for len(ops) > 0 {
		n := min(len(ops), ApplyBatch) // 4,096 rows a transaction, as before ApplyBatch grew to it
		d.ap.amu.Lock()
		err := d.applyOps(ops[:n])
		d.ap.amu.Unlock()
		if err != nil {
			return err
		}
		last = ops[n-1].LSN
		ops = ops[n:]
	}
	if err := d.log.reset(); err != nil {
		return err
	}
	d.recovered = recovered
	d.ap.applied.Store(last)
	d.ap.appended.Store(last)
	d.lsn = last
	return nil
}

// errNoRow tells Finish's slow path the row does not exist.
var errNoRow = errors.New("journal: no row")

// rowState reports, after applying every write, whether row id exists and
// whether it is open (neither finished nor interrupted).
func (d *DB) rowState(id int64) (open bool, err error) {
	if err := d.sync(); err != nil {
		return false, err
	}
	var fin, intr int
	err = d.db.QueryRow(`SELECT finished, interrupted FROM entries WHERE id = ?`, id).Scan(&fin, &intr)
	if errors.Is(err, sql.ErrNoRows) {
		return false, errNoRow
	}
	if err != nil {
		return false, err
	}
	return fin == 0 && intr == 0, nil
}
