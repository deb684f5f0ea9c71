// Command fillplans copies one stored plan of a kernel's journal N times,
// each copy older than it, for TestHostileStoredPlansBound. It is a
// separate program so that the bulk insert runs without the race
// detector the tests may be built with.
//
//	fillplans JOURNAL.DB REF N
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
		fmt.Fprintln(os.Stderr, "fillplans:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: fillplans JOURNAL.DB REF N")
	}
	n, err := strconv.Atoi(args[2])
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
	res, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO plans (ref, principal, session, src, plan, verdict, reasons, state, approver, uncovered, ticket, created_ns, expires_ns, ended_ns)
		SELECT printf('plan:%032x', i), principal, session, src, plan, verdict, reasons, state, approver, uncovered, ticket, created_ns - i, expires_ns, ended_ns
		FROM plans, n WHERE plans.ref = ?`, n, args[1])
	if err != nil {
		return err
	}
	if got, _ := res.RowsAffected(); got != int64(n) {
		return fmt.Errorf("wrote %d copies, want %d", got, n)
	}
	return db.Close()
}
