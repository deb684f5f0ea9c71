package journal

// Group commit of the intent log. A writer (Begin, Record, Finish) numbers
// its row under wmu as before (its id, LSN, seqs) and appends the row's
// frame to the open batch, then lets wmu go and waits for the batch to be
// written. The batch's first writer (its leader) takes fmu, waiting there
// while the batch before is written and more writers join its own; then
// it swaps in a new open batch (under wmu, briefly), writes every frame of
// its batch in one write(2), queues its writes for the applier and tells
// OnFinish of its finished rows, in LSN order (which is seq order, both
// being taken under wmu), and marks it done, closing its channel. The
// batch's other writers wait on that channel, not on fmu (a queue of them
// on fmu, each taking it only to find its batch done, was most of the
// time the writers waited, in a first version). So a writer still returns only once
// its row is in a completed write(2) of the log (durability is the log's,
// as before), writers that arrive while a write is under way share the
// next one, and the write and the rows' events are outside wmu, where the
// next writers number theirs.
//
// Batches are written in the order they were opened, each under fmu, so
// the log holds LSNs in order and events go out in seq order.
//
// A write that fails fails its batch and the open batch after it (rows
// numbered after the failed ones), and puts the numbering back to the last
// written row: the ids, LSN and channel seqs of the failed rows are taken
// again by the next writers, so a failed write leaves no gap, as before.
//
// Lock order: fmu, then wmu.

import (
	"errors"
	"fmt"
)

// commitBatch is rows numbered and not yet written to the log.
type commitBatch struct {
	frames []byte    // their frames, in LSN order
	ops    []*logOp  // for the applier, in LSN order
	tell   []Entry   // the finished rows OnFinish is told of, in seq order
	undo   []undoRow // what putting the numbering back reopens or forgets
	// lsn is the DB's last LSN once the batch's newest row was numbered.
	lsn uint64
	// startID and startSeq are the DB's last row id and journal seq when
	// the batch was opened: where a failed write puts the numbering back.
	startLSN uint64
	startID  int64
	startSeq uint64
	// first is the batch's first row: its writer leads the batch.
	first *logOp
	// done and err (under fmu): the batch was written, or failed; ch is
	// closed then, after both are set.
	done bool
	err  error
	ch   chan struct{}
}

// newBatch is an empty open batch, the numbering standing at lsn, id, seq.
func newBatch(lsn uint64, id int64, seq uint64) *commitBatch {
	return &commitBatch{startLSN: lsn, startID: id, startSeq: seq, ch: make(chan struct{})}
}

// finish marks b written (err nil) or failed. Call with fmu held.
func (b *commitBatch) finish(err error) {
	b.done, b.err = true, err
	close(b.ch)
}

// undoRow is a row a failed batch numbered: a Begin to forget (begun) or
// a Finish whose row is open again.
type undoRow struct {
	id    int64
	begun bool
	row   openRow
}

// maxKeptBatchBytes bounds the frame buffer a written batch hands on for
// the next one to reuse.
const maxKeptBatchBytes = 1 << 20

// errEarlierWrite fails the rows numbered after rows whose log write
// failed.
var errEarlierWrite = errors.New("journal: an earlier write to the log failed")

// stageLocked gives op the next LSN and appends its frame to the open
// batch, waiting first for the applier to have room for it. On error
// nothing is staged. Call with wmu held.
func (d *DB) stageLocked(op *logOp) (*commitBatch, error) {
	if err := d.ap.waitRoom(op.size()); err != nil {
		return nil, err
	}
	b := d.batch
	op.LSN = d.lsn + 1
	var err error
	if b.frames, err = appendFrame(b.frames, op); err != nil {
		return nil, err
	}
	d.lsn, b.lsn = op.LSN, op.LSN
	if len(b.ops) == 0 {
		b.first = op
	}
	b.ops = append(b.ops, op)
	return b, nil
}

// tellLocked queues the told copy of finished row e for b's writer to give
// OnFinish once b is written. Call with wmu held.
func (d *DB) tellLocked(b *commitBatch, e *Entry, kind string, start, fin int64) {
	if d.onFinish == nil {
		return
	}
	c := *e
	c.Kind, c.StartNS, c.FinishNS, c.Finished, c.Head = kind, start, fin, true, Head(e.Src)
	b.tell = append(b.tell, c)
}

// await returns once b, where op was staged, is written (nil) or failed
// (its error): b's leader (op is its first row) writes it, if no one else
// has; the others wait for it.
func (d *DB) await(b *commitBatch, op *logOp) error {
	if b.first != op {
		<-b.ch
		return b.err
	}
	d.fmu.Lock()
	defer d.fmu.Unlock()
	if !b.done {
		// Batches are swapped out only under fmu and written before it is
		// let go, so an unwritten b is still the open batch.
		d.wmu.Lock()
		d.swapLocked()
		d.wmu.Unlock()
		d.writeBatch(b, false)
	}
	return b.err
}

// flushLocked writes the open batch, if it holds rows. Call with fmu and
// wmu held.
func (d *DB) flushLocked() error {
	b := d.batch
	if b == nil || len(b.ops) == 0 {
		return nil
	}
	d.swapLocked()
	d.writeBatch(b, true)
	return b.err
}

// swapLocked opens a new batch, reusing the last written one's buffers.
// Call with fmu and wmu held.
func (d *DB) swapLocked() {
	n := d.spare
	d.spare = nil
	if n == nil {
		n = &commitBatch{}
	}
	n.startLSN, n.startID, n.startSeq = d.lsn, d.lastID, d.seqs.last
	n.ch = make(chan struct{})
	d.batch = n
}

// writeBatch writes b, swapped out, to the log in one write; queues its
// rows for the applier and tells OnFinish of its finished rows; or, if the
// write fails, fails it and the open batch and puts the numbering back.
// Call with fmu held, and wmu held when wlocked.
func (d *DB) writeBatch(b *commitBatch, wlocked bool) {
	if err := d.log.write(b.frames, b.lsn, d.ap.applied.Load()); err != nil {
		if !wlocked {
			d.wmu.Lock()
			defer d.wmu.Unlock()
		}
		b.finish(err)
		d.rollbackLocked(b)
		return
	}
	for _, op := range b.ops {
		d.ap.enqueue(op)
	}
	for i := range b.tell {
		d.onFinish(&b.tell[i])
	}
	b.finish(nil)
	if cap(b.frames) <= maxKeptBatchBytes {
		clear(b.ops)
		d.spare = &commitBatch{frames: b.frames[:0], ops: b.ops[:0], undo: b.undo[:0]}
	}
}

// rollbackLocked fails the open batch too (its rows were numbered after
// failed's), and puts the numbering back to where it stood before failed:
// the last id, LSN and seq, the rows open, and the cached seqs (read again
// from the database, which has every written row once applied). Call with
// fmu and wmu held.
func (d *DB) rollbackLocked(failed *commitBatch) {
	open := d.batch
	if len(open.ops) > 0 {
		open.finish(fmt.Errorf("%w: %w", errEarlierWrite, failed.err))
	}
	for _, b := range [2]*commitBatch{open, failed} {
		for _, u := range b.undo {
			if u.begun {
				delete(d.open, u.id)
			} else {
				d.open[u.id] = u.row
			}
		}
	}
	d.lsn, d.lastID, d.seqs.last = failed.startLSN, failed.startID, failed.startSeq
	clear(d.seqs.tlast)
	clear(d.seqs.plast)
	clear(d.seqs.idlast)
	d.batch = newBatch(d.lsn, d.lastID, d.seqs.last)
}
