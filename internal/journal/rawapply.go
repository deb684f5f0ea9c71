package journal

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// rawStmts are the applier's statements, prepared once on the write
// connection's driver connection and run through it (database/sql's
// Conn.Raw, one call per batch), so that a row's two dozen arguments
// reach the driver as they are: database/sql's Stmt converts and copies
// every argument, allocates a result and takes its locks for every
// statement (about 5% of applying a row, and 4 of its 37 allocations).
// Use only inside a raw call, with the applier's amu held.
type rawStmts struct {
	begin, commit, rollback driver.StmtExecContext
	ins                     driver.StmtExecContext // insert an entry
	insOut                  driver.StmtExecContext // insert one outputs row
	delOuts                 driver.StmtExecContext // delete an entry's outputs rows
	fin                     driver.StmtExecContext // finish an entry
	setLSN                  driver.StmtExecContext // record the LSN applied
	getRow                  driver.StmtQueryContext
	hasRow                  driver.StmtQueryContext // sqlHasRow
	multi                   multiStmts              // applymulti.go
	all                     []driver.Stmt           // to close
	// args is the argument list every statement's arguments are put in
	// (one statement at a time).
	args []driver.NamedValue
	dest []driver.Value
}

// The applier's statement texts. An entry's columns are the ones
// filters, indexes, the interrupted marking and the retention reads use;
// the rest of a row (cwd, verdict, status, opaque, code, finish_ns, and
// outputs_json since migration 7) is read only from packed, and new rows
// leave those columns at their defaults (rows written before keep
// theirs). The outputs are in packed and, for lookups by hash, in the
// outputs table, which the applier writes (insertOutputs).
const (
	sqlInsertEntry = `INSERT INTO entries(id, kind, parent, session, principal, start_ns, head,
		effect_mask, ok, finished, ref_n, seq, tseq, pseq, pid, packed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertOutput = `INSERT INTO outputs(entry_id, seq, kind, hash, len) VALUES (?, ?, ?, ?, ?)`
	sqlDeleteOuts   = `DELETE FROM outputs WHERE entry_id = ?`
	sqlSetLSN       = `UPDATE journal_log SET applied_lsn = ? WHERE id = 1`
	sqlGetOpenRow   = `SELECT ` + entryCols + ` FROM entries WHERE id = ? AND finished = 0 AND interrupted = 0`
	sqlHasRow       = `SELECT 1 FROM entries WHERE id = ?`
	// One statement finishes a row: the applier has read it (getRow) and
	// writes it back whole (packed), with the columns filters use.
	sqlFinishEntry = `UPDATE entries SET finished = 1, ok = ?, outputs_json = '[]', effect_mask = ?, ref_n = ?,
		seq = ?, tseq = ?, pseq = ?, packed = ?
		WHERE id = ? AND finished = 0 AND interrupted = 0`
)

// prepareRaw prepares the applier's statements on the driver connection
// dc.
func prepareRaw(dc any) (_ *rawStmts, err error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("journal: the sqlite driver's connection cannot prepare with a context")
	}
	r := &rawStmts{args: make([]driver.NamedValue, 0, 24)}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	ctx := context.Background()
	prep := func(text string) (driver.Stmt, error) {
		st, err := pc.PrepareContext(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("%w (in %.40q)", err, text)
		}
		r.all = append(r.all, st)
		return st, nil
	}
	for _, s := range []struct {
		text string
		dst  *driver.StmtExecContext
	}{
		{`BEGIN IMMEDIATE`, &r.begin}, {`COMMIT`, &r.commit}, {`ROLLBACK`, &r.rollback},
		{sqlInsertEntry, &r.ins}, {sqlInsertOutput, &r.insOut}, {sqlDeleteOuts, &r.delOuts},
		{sqlFinishEntry, &r.fin}, {sqlSetLSN, &r.setLSN},
	} {
		st, err := prep(s.text)
		if err != nil {
			return nil, err
		}
		if *s.dst, ok = st.(driver.StmtExecContext); !ok {
			return nil, fmt.Errorf("journal: the sqlite driver's statement cannot execute with a context")
		}
	}
	if err := r.prepareMulti(prep); err != nil {
		return nil, err
	}
	st, err := prep(sqlGetOpenRow)
	if err != nil {
		return nil, err
	}
	if r.getRow, ok = st.(driver.StmtQueryContext); !ok {
		return nil, fmt.Errorf("journal: the sqlite driver's statement cannot query with a context")
	}
	if st, err = prep(sqlHasRow); err != nil {
		return nil, err
	}
	if r.hasRow, ok = st.(driver.StmtQueryContext); !ok {
		return nil, fmt.Errorf("journal: the sqlite driver's statement cannot query with a context")
	}
	return r, nil
}

// close finalizes the statements (inside a raw call).
func (r *rawStmts) close() error {
	var errs []error
	for _, st := range r.all {
		errs = append(errs, st.Close())
	}
	r.all = nil
	return errors.Join(errs...)
}

// exec runs st with vals (each an int64, a string or nil) as its
// arguments, in order.
func (r *rawStmts) exec(st driver.StmtExecContext, vals ...any) error {
	r.bind(vals)
	_, err := st.ExecContext(context.Background(), r.args)
	clear(r.args)
	return err
}

func (r *rawStmts) bind(vals []any) {
	r.args = r.args[:0]
	for i, v := range vals {
		r.args = append(r.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
}

// openRow reads the open row id (getRow): its id, interrupted flag and
// packed text; found is false when it is not open.
func (r *rawStmts) openRow(id int64) (packed string, found bool, err error) {
	r.bind([]any{id})
	rows, err := r.getRow.QueryContext(context.Background(), r.args)
	clear(r.args)
	if err != nil {
		return "", false, err
	}
	if r.dest == nil {
		r.dest = make([]driver.Value, len(rows.Columns()))
	}
	err = rows.Next(r.dest)
	cerr := rows.Close()
	if errors.Is(err, io.EOF) {
		return "", false, cerr
	}
	if err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, err
	}
	p, ok := r.dest[2].(string)
	clear(r.dest)
	if !ok {
		return "", false, fmt.Errorf("journal: row %d: packed is not text", id)
	}
	return p, true, nil
}

// hasRowID reports whether row id exists (sqlHasRow).
func (r *rawStmts) hasRowID(id int64) (bool, error) {
	r.bind([]any{id})
	rows, err := r.hasRow.QueryContext(context.Background(), r.args)
	clear(r.args)
	if err != nil {
		return false, err
	}
	dest := make([]driver.Value, 1)
	err = rows.Next(dest)
	cerr := rows.Close()
	if errors.Is(err, io.EOF) {
		return false, cerr
	}
	if err == nil {
		err = cerr
	}
	return err == nil, err
}
