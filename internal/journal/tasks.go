package journal

import (
	"fmt"
	"time"
)

// Task records that outlive their kernel (schema v9). The kernel writes a
// row when a retained task starts and again when it ends; a kernel that
// starts on the same database marks the rows still running interrupted
// (InterruptTasks) and hands each session's rows back when it comes again.
// The rows are bounded per principal and in all (TrimTasks), oldest first.

// TaskRow is one persisted task record.
type TaskRow struct {
	Principal, Session string
	Seq                int64 // the N of task:N
	State              string
	StartedNs          int64
	FinishedNs         int64 // 0 while running
	ResultRef          string
	Error              string
	Language           bool
	Desc               string
	// OutBytes is the output the task printed, when it ended here; -1
	// when unknown (still running, or interrupted).
	OutBytes int64
}

// The state InterruptTasks gives a row that was not terminal.
const taskInterrupted = "interrupted"

// SaveTask writes r, replacing its earlier row.
func (d *DB) SaveTask(r TaskRow) error {
	for _, f := range []string{r.Principal, r.Session, r.State, r.ResultRef} {
		if err := checkField("task", f); err != nil {
			return err
		}
	}
	_, err := d.db.Exec(`INSERT INTO tasks(principal, session, seq, state, started_ns, finished_ns, result_ref, error, language, descr, out_bytes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(principal, session, seq) DO UPDATE SET state = excluded.state, finished_ns = excluded.finished_ns,
			result_ref = excluded.result_ref, error = excluded.error, language = excluded.language, descr = excluded.descr,
			out_bytes = excluded.out_bytes`,
		r.Principal, r.Session, r.Seq, r.State, r.StartedNs, r.FinishedNs, r.ResultRef, clip(r.Error, MaxFieldBytes),
		b2i(r.Language), clip(r.Desc, MaxFieldBytes), r.OutBytes)
	if err != nil {
		return fmt.Errorf("journal: save task: %w", err)
	}
	return nil
}

// InterruptTasks marks every row that is not terminal interrupted, ended
// now; a kernel calls it once as it starts.
func (d *DB) InterruptTasks() (int64, error) {
	res, err := d.db.Exec(`UPDATE tasks SET state = ?, finished_ns = ? WHERE state IN ('running', 'cancelling')`,
		taskInterrupted, time.Now().UnixNano())
	if err != nil {
		return 0, fmt.Errorf("journal: interrupt tasks: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Tasks returns every row, oldest first.
func (d *DB) Tasks() ([]TaskRow, error) {
	return d.taskRows(`SELECT principal, session, seq, state, started_ns, finished_ns, result_ref, error, language, descr, out_bytes
		FROM tasks ORDER BY started_ns, principal, session, seq`)
}

// SessionTasks returns the rows of one session, by seq.
func (d *DB) SessionTasks(principal, session string) ([]TaskRow, error) {
	return d.taskRows(`SELECT principal, session, seq, state, started_ns, finished_ns, result_ref, error, language, descr, out_bytes
		FROM tasks WHERE principal = ? AND session = ? ORDER BY seq`, principal, session)
}

func (d *DB) taskRows(q string, args ...any) ([]TaskRow, error) {
	rows, err := d.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: read tasks: %w", err)
	}
	defer rows.Close()
	var out []TaskRow
	for rows.Next() {
		var r TaskRow
		var lang int
		if err := rows.Scan(&r.Principal, &r.Session, &r.Seq, &r.State, &r.StartedNs, &r.FinishedNs, &r.ResultRef, &r.Error, &lang, &r.Desc, &r.OutBytes); err != nil {
			return nil, fmt.Errorf("journal: read tasks: %w", err)
		}
		r.Language = lang != 0
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: read tasks: %w", err)
	}
	return out, nil
}

// ForgetSessionTasks deletes the rows of one session (closed for good).
func (d *DB) ForgetSessionTasks(principal, session string) error {
	if _, err := d.db.Exec(`DELETE FROM tasks WHERE principal = ? AND session = ?`, principal, session); err != nil {
		return fmt.Errorf("journal: forget tasks: %w", err)
	}
	return nil
}

// TrimTasks deletes the oldest ended rows of principal beyond perPrincipal
// and the oldest ended rows of anyone beyond total (a bound below 1 is
// none), returning the rows deleted so their owner can forget what goes
// with them. Running rows are never deleted: each principal's live tasks
// are bounded apart.
func (d *DB) TrimTasks(principal string, perPrincipal, total int) ([]TaskRow, error) {
	var gone []TaskRow
	trim := func(where string, bound int, args ...any) error {
		if bound < 1 {
			return nil
		}
		var n int
		if err := d.db.QueryRow(`SELECT count(*) FROM tasks WHERE `+where, args...).Scan(&n); err != nil {
			return err
		}
		if n <= bound {
			return nil
		}
		sel := `SELECT principal, session, seq, state, started_ns, finished_ns, result_ref, error, language, descr, out_bytes
			FROM tasks WHERE ` + where + ` AND state NOT IN ('running', 'cancelling') ORDER BY started_ns, seq LIMIT ?`
		rows, err := d.taskRows(sel, append(args, n-bound)...)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := d.db.Exec(`DELETE FROM tasks WHERE principal = ? AND session = ? AND seq = ?`, r.Principal, r.Session, r.Seq); err != nil {
				return err
			}
		}
		gone = append(gone, rows...)
		return nil
	}
	if err := trim(`principal = ?`, perPrincipal, principal); err != nil {
		return gone, fmt.Errorf("journal: trim tasks: %w", err)
	}
	if err := trim(`1 = 1`, total); err != nil {
		return gone, fmt.Errorf("journal: trim tasks: %w", err)
	}
	return gone, nil
}

// clip cuts s to at most n bytes.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
