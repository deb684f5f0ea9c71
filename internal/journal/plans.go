package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Stored plans (the kernel's plan.get, plan.apply and cap.request; see
// docs/kernel.md, "Plans and approval"). The kernel keeps its plans in
// memory and, with a state directory, writes every change here before it
// answers: storing a plan, a decision on it, its expiry, its being
// applied. Each change is one SQLite transaction on the journal's write
// connection, committed in WAL mode with synchronous=NORMAL, which is
// what the intent log's appends are measured against: it survives a kill
// -9 of the kernel (the commit is in the kernel's page cache when the
// call returns), not certainly a power loss. Plan changes are rare next
// to exec rows, so they skip the log and its applier and pay for a commit
// of their own; they take the applier's lock so they never wait on
// SQLite's busy lock.

// ErrPlanExists is PutPlan of a ref already stored.
var ErrPlanExists = errors.New("journal: plan ref already stored")

// PlanRow is one stored plan as the journal keeps it. The kernel gives
// meaning to State, Verdict and Ticket; the journal only keeps them.
type PlanRow struct {
	Ref, Principal, Session string
	Src                     string
	// Plan is the derived plan, as JSON.
	Plan      json.RawMessage
	Verdict   string
	Reasons   []string
	State     string
	Approver  string
	Uncovered []string
	// Ticket is the approval ticket: the digest the approval was given
	// for ("" while none was).
	Ticket    string
	CreatedNS int64
	ExpiresNS int64
	// EndedNS is when the plan stopped being able to run (applied,
	// expired); 0 while it is live. An ended row keeps no source or plan.
	EndedNS int64
}

// PlanUpdate is a change of one stored plan's decision.
type PlanUpdate struct {
	Ref       string
	State     string
	Approver  string
	Uncovered []string
	Ticket    string
	// EndedNS, when non-zero, ends the plan: its source and plan are
	// dropped, the rest kept as its tombstone.
	EndedNS int64
}

// checkPlanRow refuses a row past the journal's bounds.
func checkPlanRow(r *PlanRow) error {
	for _, f := range []struct{ name, v string }{{"plan ref", r.Ref}, {"principal", r.Principal}, {"session", r.Session},
		{"verdict", r.Verdict}, {"state", r.State}, {"approver", r.Approver}, {"ticket", r.Ticket}} {
		if err := checkField(f.name, f.v); err != nil {
			return err
		}
	}
	if r.Ref == "" {
		return fmt.Errorf("%w: a plan without a ref", ErrBadEntry)
	}
	if len(r.Src) > MaxSrcBytes {
		return fmt.Errorf("%w: plan source is %d bytes (max %d)", ErrBadEntry, len(r.Src), MaxSrcBytes)
	}
	if len(r.Plan) > MaxPlanBytes {
		return fmt.Errorf("%w: plan is %d bytes (max %d)", ErrBadEntry, len(r.Plan), MaxPlanBytes)
	}
	return nil
}

// textList is the JSON text of a list of strings ("[]" for none).
func textList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, err := json.Marshal(l)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// listText decodes a list textList wrote: nil for none, and for a text
// that does not decode (the kernel judges a plan again before it runs,
// whatever its stored reasons said).
func listText(s string) []string {
	var l []string
	if s == "[]" || json.Unmarshal([]byte(s), &l) != nil || len(l) == 0 {
		return nil
	}
	return l
}

// writeTx runs fn in one transaction on the write connection, between the
// applier's batches, and commits it. It never holds the applier's lock
// while it waits for wmu (Close takes wmu, then the applier's lock): a
// Close that comes between the check and the lock leaves the connection
// closed, and the transaction fails rather than waits.
func (d *DB) writeTx(what string, fn func(w writer) error) error {
	d.wmu.Lock()
	closed := d.closed
	d.wmu.Unlock()
	if closed {
		return ErrClosed
	}
	d.ap.amu.Lock()
	defer d.ap.amu.Unlock()
	if d.w == nil {
		return fmt.Errorf("journal: %s: no write connection", what)
	}
	w := writer{d.w}
	if _, err := w.Exec(`BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("journal: %s: %w", what, err)
	}
	if err := fn(w); err != nil {
		_, _ = w.Exec(`ROLLBACK`)
		return fmt.Errorf("journal: %s: %w", what, err)
	}
	if _, err := w.Exec(`COMMIT`); err != nil {
		_, _ = w.Exec(`ROLLBACK`)
		return fmt.Errorf("journal: %s: %w", what, err)
	}
	d.wrote(1) // counted toward the next checkpoint, as applied rows are
	return nil
}

// PutPlan stores a new plan, committed before it returns. A ref already
// stored is ErrPlanExists: a plan is never overwritten.
func (d *DB) PutPlan(r *PlanRow) error {
	if err := checkPlanRow(r); err != nil {
		return err
	}
	plan := string(r.Plan)
	if plan == "" {
		plan = "null"
	}
	return d.writeTx("storing a plan", func(w writer) error {
		res, err := w.Exec(`INSERT INTO plans(ref, principal, session, src, plan, verdict, reasons, state, approver, uncovered,
			ticket, created_ns, expires_ns, ended_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(ref) DO NOTHING`,
			r.Ref, r.Principal, r.Session, r.Src, plan, r.Verdict, textList(r.Reasons), r.State, r.Approver,
			textList(r.Uncovered), r.Ticket, r.CreatedNS, r.ExpiresNS, r.EndedNS)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrPlanExists
		}
		return nil
	})
}

// UpdatePlans applies ups in one transaction, committed before it
// returns. A ref not stored is skipped.
func (d *DB) UpdatePlans(ups []PlanUpdate) error {
	if len(ups) == 0 {
		return nil
	}
	for _, u := range ups {
		for _, f := range []struct{ name, v string }{{"plan ref", u.Ref}, {"state", u.State}, {"approver", u.Approver}, {"ticket", u.Ticket}} {
			if err := checkField(f.name, f.v); err != nil {
				return err
			}
		}
	}
	return d.writeTx("deciding a plan", func(w writer) error {
		for _, u := range ups {
			var err error
			if u.EndedNS != 0 {
				_, err = w.Exec(`UPDATE plans SET state = ?, approver = ?, uncovered = ?, ticket = ?, ended_ns = ?, src = '', plan = 'null'
					WHERE ref = ?`, u.State, u.Approver, textList(u.Uncovered), u.Ticket, u.EndedNS, u.Ref)
			} else {
				_, err = w.Exec(`UPDATE plans SET state = ?, approver = ?, uncovered = ?, ticket = ? WHERE ref = ?`,
					u.State, u.Approver, textList(u.Uncovered), u.Ticket, u.Ref)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// DeletePlans forgets the plans refs (tombstones past their bound), in
// one transaction.
func (d *DB) DeletePlans(refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	return d.writeTx("forgetting plans", func(w writer) error {
		for _, ref := range refs {
			if _, err := w.Exec(`DELETE FROM plans WHERE ref = ?`, ref); err != nil {
				return err
			}
		}
		return nil
	})
}

// plansQuery reads the stored plans oldest first, at most its argument of
// them, through the plans_age index (TestPlansReadThroughIndex).
const plansQuery = `SELECT ref, principal, session, src, plan, verdict, reasons, state,
	approver, uncovered, ticket, created_ns, expires_ns, ended_ns FROM plans ORDER BY created_ns, ref LIMIT ?`

// Plans calls fn with every stored plan, oldest first (by creation), at
// most MaxPlanRows of them; it stops at fn's first error.
func (d *DB) Plans(fn func(*PlanRow) error) error {
	rows, err := d.db.QueryContext(context.Background(), plansQuery, MaxPlanRows)
	if err != nil {
		return fmt.Errorf("journal: reading plans: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r PlanRow
		var plan, reasons, uncovered string
		if err := rows.Scan(&r.Ref, &r.Principal, &r.Session, &r.Src, &plan, &r.Verdict, &reasons, &r.State,
			&r.Approver, &uncovered, &r.Ticket, &r.CreatedNS, &r.ExpiresNS, &r.EndedNS); err != nil {
			return fmt.Errorf("journal: reading plans: %w", err)
		}
		r.Plan = json.RawMessage(plan)
		// A list that does not decode reads as none: the kernel judges
		// the plan again before it runs, whatever its reasons said.
		r.Reasons, r.Uncovered = listText(reasons), listText(uncovered)
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("journal: reading plans: %w", err)
	}
	return nil
}
