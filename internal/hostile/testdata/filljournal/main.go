// Command filljournal writes many copies of one row into a stopped
// kernel's journal, for the hostile tests that cross a journal bound
// tenfold. It is a separate program so that the bulk insert runs without
// the race detector the tests may be built with.
//
//	filljournal rows JOURNAL.DB PRINCIPAL N START
//
// copies the newest exec row of PRINCIPAL N times, outputs and all, for
// TestHostileJournalWindowBounds: each copy is newer by id than every row
// before it, its start time START-i (the i-th copy), its own id after the
// principal's last, and no event sequence numbers.
//
//	filljournal plans JOURNAL.DB REF N
//
// copies the stored plan REF N times, each copy older than it, for
// TestHostileStoredPlansBound.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"

	_ "modernc.org/sqlite"
)

const usage = "usage: filljournal rows JOURNAL.DB PRINCIPAL N START | filljournal plans JOURNAL.DB REF N"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "filljournal:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 5 && args[0] == "rows":
		start, err := strconv.ParseInt(args[4], 10, 64)
		if err != nil {
			return err
		}
		return fill(args[1], args[3], func(db *sql.DB, n int) error { return fillRows(db, args[2], n, start) })
	case len(args) == 4 && args[0] == "plans":
		return fill(args[1], args[3], func(db *sql.DB, n int) error { return fillPlans(db, args[2], n) })
	}
	return errors.New(usage)
}

// fill opens the journal at path for one bulk writer and runs write with
// the count copies.
func fill(path, copies string, write func(*sql.DB, int) error) error {
	n, err := strconv.Atoi(copies)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil {
		return err
	}
	if err := write(db, n); err != nil {
		return err
	}
	return db.Close()
}

// fillRows writes n copies of principal's newest exec row.
func fillRows(db *sql.DB, principal string, n int, start int64) error {
	var src, maxID, maxPID int64
	if err := db.QueryRow(`SELECT max(id) FROM entries WHERE kind = 'exec' AND principal = ?`, principal).Scan(&src); err != nil {
		return fmt.Errorf("the principal's newest row: %w", err)
	}
	if err := db.QueryRow(`SELECT max(id), (SELECT max(pid) FROM entries WHERE principal = ?) FROM entries`, principal).Scan(&maxID, &maxPID); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
		INSERT INTO entries (id, kind, parent, session, principal, start_ns, finish_ns, finished, cwd, verdict, ok, status, opaque,
			head, interrupted, effect_mask, outputs_json, code, packed, pid)
		SELECT ?2 + i, kind, parent, session, principal, ?3 - i, finish_ns, finished, cwd, verdict, ok, status, opaque,
			head, interrupted, effect_mask, outputs_json, code, packed, ?4 + i
		FROM entries, n WHERE entries.id = ?5`, n, maxID, start, maxPID, src)
	if err != nil {
		return err
	}
	if got, _ := res.RowsAffected(); got != int64(n) {
		return fmt.Errorf("wrote %d copies, want %d", got, n)
	}
	if _, err := tx.Exec(`INSERT INTO outputs (entry_id, seq, kind, hash, len)
		SELECT e.id, o.seq, o.kind, o.hash, o.len FROM entries e JOIN outputs o ON o.entry_id = ?1 WHERE e.id > ?2`, src, maxID); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'entries'`, maxID+int64(n)); err != nil {
		return err
	}
	return tx.Commit()
}

// fillPlans writes n copies of the stored plan ref, each older than it.
func fillPlans(db *sql.DB, ref string, n int) error {
	res, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO plans (ref, principal, session, src, plan, verdict, reasons, state, approver, uncovered, ticket, created_ns, expires_ns, ended_ns)
		SELECT printf('plan:%032x', i), principal, session, src, plan, verdict, reasons, state, approver, uncovered, ticket, created_ns - i, expires_ns, ended_ns
		FROM plans, n WHERE plans.ref = ?`, n, ref)
	if err != nil {
		return err
	}
	if got, _ := res.RowsAffected(); got != int64(n) {
		return fmt.Errorf("wrote %d copies, want %d", got, n)
	}
	return nil
}
