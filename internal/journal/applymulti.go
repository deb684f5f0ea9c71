package journal

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
)

// multiRows is how many entries (and, separately, outputs rows) one
// multi-row INSERT of the applier writes. Applying a batch's new rows one
// statement each paid, per row and per statement, what SQLite does
// around the b-tree work: binding, opening a cursor on the table and on
// each of its indexes, reading and writing sqlite_sequence
// (AUTOINCREMENT), halting; and every index entry was placed by a seek
// from its index's root. One statement of many rows opens its cursors
// once, and an index whose keys the rows append (the id-, seq- and
// start-ordered ones) finds its place on the page its cursor is left on.
// A statement of many rows may stop half done, so SQLite keeps a
// statement journal of the pages it changes; that is paid once a
// statement, a page each, and shared by its rows.
const multiRows = 64

// multiStmts are the applier's multi-row statements (rawStmts).
type multiStmts struct {
	ins driver.StmtExecContext // multiRows entries
	out driver.StmtExecContext // multiRows outputs rows
}

// multiValues is the VALUES list of n rows of k parameters each.
func multiValues(n, k int) string {
	row := "(" + strings.Repeat("?, ", k-1) + "?)"
	return strings.Repeat(row+", ", n-1) + row
}

// sqlInsertEntries is sqlInsertEntry for multiRows rows, without their
// ids: SQLite numbers them (AUTOINCREMENT: one past the greatest id it
// ever gave), and flush checks it numbered them as the journal did. A
// statement that is given ids converts each to an integer, which may
// fail half done, so SQLite keeps a statement journal for it; likewise
// for a constraint that aborts (hence OR FAIL: a failure rolls the whole
// batch back, see applyMulti) and for an immediate foreign key (hence
// migration 12). sqlInsertOutputs is sqlInsertOutput for multiRows rows.
var (
	sqlInsertEntries = `INSERT OR FAIL INTO entries(kind, parent, session, principal, start_ns, head,
		effect_mask, ok, finished, ref_n, seq, tseq, pseq, pid, packed) VALUES ` + multiValues(multiRows, entryInsertCols)
	sqlInsertOutputs = `INSERT OR FAIL INTO outputs(entry_id, seq, kind, hash, len) VALUES ` + multiValues(multiRows, outputInsertCols)
)

const (
	entryInsertCols  = 15 // sqlInsertEntries' parameters a row
	outputInsertCols = 5  // sqlInsertOutputs'
)

// prepareMulti prepares the multi-row statements with prep.
func (r *rawStmts) prepareMulti(prep func(string) (driver.Stmt, error)) error {
	for _, s := range []struct {
		text string
		dst  *driver.StmtExecContext
	}{{sqlInsertEntries, &r.multi.ins}, {sqlInsertOutputs, &r.multi.out}} {
		st, err := prep(s.text)
		if err != nil {
			return err
		}
		var ok bool
		if *s.dst, ok = st.(driver.StmtExecContext); !ok {
			return fmt.Errorf("journal: the sqlite driver's statement cannot execute with a context")
		}
	}
	return nil
}

// errMultiRefused is a multi-row batch that SQLite refused a row of (a
// constraint): the batch is rolled back and applied a row at a time,
// which skips that row alone (applyRaw).
var errMultiRefused = errors.New("journal: a multi-row insert was refused")

// errMultiNumbered is a multi-row insert whose rows SQLite numbered
// otherwise than the journal (an id the journal handed out below one
// SQLite gave before, say): the batch is rolled back and applied a row
// at a time, with the journal's ids.
var errMultiNumbered = errors.New("journal: a multi-row insert numbered its rows otherwise (constraint)")

// multiBatch gathers a batch's new rows for the multi-row statements.
type multiBatch struct {
	d    *DB
	rows []*logOp // entries to insert, in batch order
	outs []any    // outputs rows' arguments, outputInsertCols each
}

// add queues op's row.
func (m *multiBatch) add(op *logOp) error {
	m.rows = append(m.rows, op)
	if len(m.rows) == multiRows {
		return m.flush(false)
	}
	return nil
}

// flush writes the queued rows: multiRows at a time by the multi-row
// statement, and (all) the rest one by one when all is set; then their
// outputs rows likewise.
func (m *multiBatch) flush(all bool) error {
	r := m.d.raw
	for len(m.rows) >= multiRows {
		chunk := m.rows[:multiRows]
		if !consecutive(chunk) {
			// Not numbered one after another (ids are handed out in
			// the log's order, so this does not happen): a row at a
			// time, with their ids.
			for _, op := range chunk {
				if err := m.d.applyOp(op); err != nil {
					return err
				}
			}
			m.rows = m.rows[multiRows:]
			continue
		}
		r.args = r.args[:0]
		for _, op := range chunk {
			outs := opOutputs(op)
			if err := m.queueOutputs(op.ID, outs); err != nil {
				return err
			}
			r.appendArgs(op.Kind, nullID(op.Parent), op.Session, op.Principal, op.StartNS, op.Head,
				op.Mask, b01(op.OK), b01(op.Finished), nullID(op.RefN), nullSeq(op.Seq), nullSeq(op.TSeq), nullSeq(op.PSeq),
				nullID(op.PID), packOp(op, outs))
		}
		res, err := r.multi.ins.ExecContext(context.Background(), r.args)
		clear(r.args)
		if err != nil {
			return err
		}
		// The journal's ids are consecutive (consecutive), and so are
		// SQLite's: the last being the chunk's last, every one is.
		last, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if last != chunk[multiRows-1].ID {
			return fmt.Errorf("%w: rows %d-%d numbered up to %d", errMultiNumbered, chunk[0].ID, chunk[multiRows-1].ID, last)
		}
		m.rows = m.rows[multiRows:]
	}
	if all {
		for _, op := range m.rows {
			if err := m.d.applyOp(op); err != nil {
				return err
			}
		}
		m.rows = m.rows[:0]
	}
	return m.flushOutputs(all)
}

// queueOutputs queues the outputs rows of entry id.
func (m *multiBatch) queueOutputs(id int64, outs string) error {
	if outs == "[]" {
		return nil
	}
	list, err := decodeOutputs(outs)
	if err != nil {
		return fmt.Errorf("journal: outputs of %d: %w", id, err)
	}
	for i, o := range list {
		m.outs = append(m.outs, id, int64(i), o.Kind, o.Hash, o.Len)
	}
	return nil
}

// flushOutputs writes the queued outputs rows, multiRows at a time, and
// (all) the rest one by one.
func (m *multiBatch) flushOutputs(all bool) error {
	r := m.d.raw
	const n = multiRows * outputInsertCols
	for len(m.outs) >= n {
		r.args = r.args[:0]
		r.appendArgs(m.outs[:n]...)
		_, err := r.multi.out.ExecContext(context.Background(), r.args)
		clear(r.args)
		if err != nil {
			return err
		}
		m.outs = m.outs[n:]
	}
	if all {
		for len(m.outs) > 0 {
			if err := r.exec(r.insOut, m.outs[:outputInsertCols]...); err != nil {
				return err
			}
			m.outs = m.outs[outputInsertCols:]
		}
	}
	return nil
}

// appendArgs appends vals to the argument list, numbered on from it.
func (r *rawStmts) appendArgs(vals ...any) {
	for _, v := range vals {
		r.args = append(r.args, driver.NamedValue{Ordinal: len(r.args) + 1, Value: v})
	}
}

// opOutputs is the outputs JSON of the row op inserts ("[]" for none).
func opOutputs(op *logOp) string {
	if op.Outputs == nil {
		return "[]"
	}
	return string(op.Outputs)
}

// packOp is the packed text of the row op inserts (both insert paths).
func packOp(op *logOp, outs string) string {
	e := Entry{Kind: op.Kind, Parent: op.Parent, Session: op.Session, Principal: op.Principal, StartNS: op.StartNS,
		FinishNS: op.FinishNS, Finished: op.Finished, Cwd: op.Cwd, Src: op.Src, Head: op.Head, AST: op.AST,
		Effects: op.Effects, Verdict: op.Verdict, OK: op.OK, Status: op.Status, Opaque: op.Opaque,
		RefN: op.RefN, Code: op.Code, Seq: op.Seq, TSeq: op.TSeq, PSeq: op.PSeq}
	return packEntry(&e, op.Mask, outs)
}

// applyMulti is applyRaw with the batch's new rows written by the
// multi-row statements. The rows a batch finishes were inserted by an
// earlier batch (a finish of a row this batch inserts is merged into its
// insert: mergeFinishes), so the finishes and the inserts touch
// different rows and run in batch order each. Any constraint refusal
// rolls the batch back (errMultiRefused): applyRaw then applies it a
// row at a time, skipping the refused row as it always has.
func (d *DB) applyMulti(ops []*logOp) error {
	r := d.raw
	if err := r.exec(r.begin); err != nil {
		return err
	}
	fail := func(err error) error {
		_ = r.exec(r.rollback)
		if isConstraint(err) {
			return errMultiRefused
		}
		return err
	}
	merges, absorbed := mergeFinishes(ops)
	m := &multiBatch{d: d}
	for i, op := range ops {
		if absorbed[i] {
			continue
		}
		if mg, ok := merges[i]; ok {
			op = mg.row
		}
		var err error
		if op.Finish {
			err = d.applyFinish(op)
		} else {
			err = m.add(op)
		}
		if err != nil {
			return fail(err)
		}
	}
	if err := m.flush(true); err != nil {
		return fail(err)
	}
	if err := r.exec(r.setLSN, int64(ops[len(ops)-1].LSN)); err != nil {
		return fail(err)
	}
	if err := r.exec(r.commit); err != nil {
		return fail(err)
	}
	return nil
}

// consecutive reports whether ops are numbered one after another.
func consecutive(ops []*logOp) bool {
	for i, op := range ops {
		if op.ID != ops[0].ID+int64(i) {
			return false
		}
	}
	return true
}
