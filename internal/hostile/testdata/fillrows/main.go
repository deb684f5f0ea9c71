// Command fillrows copies the newest exec row of one principal in a
// kernel's journal N times, outputs and all, for
// TestHostileJournalWindowBounds: each copy is newer by id than every row
// before it, its start time START-i (the i-th copy), its own id after the
// principal's last, and no event sequence numbers. It is a separate
// program so that the bulk insert runs without the race detector the tests
// may be built with.
//
//	fillrows JOURNAL.DB PRINCIPAL N START
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"

	_ "modernc.org/sqlite"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fillrows:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("usage: fillrows JOURNAL.DB PRINCIPAL N START")
	}
	n, err := strconv.Atoi(args[2])
	if err != nil {
		return err
	}
	start, err := strconv.ParseInt(args[3], 10, 64)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", args[0])
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil {
		return err
	}
	var src, maxID, maxPID int64
	if err := db.QueryRow(`SELECT max(id) FROM entries WHERE kind = 'exec' AND principal = ?`, args[1]).Scan(&src); err != nil {
		return fmt.Errorf("the principal's newest row: %w", err)
	}
	if err := db.QueryRow(`SELECT max(id), (SELECT max(pid) FROM entries WHERE principal = ?) FROM entries`, args[1]).Scan(&maxID, &maxPID); err != nil {
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
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}
