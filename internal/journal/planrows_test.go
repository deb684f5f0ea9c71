package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func readPlans(t *testing.T, d *DB) []PlanRow {
	t.Helper()
	var out []PlanRow
	if err := d.Plans(func(r *PlanRow) error { out = append(out, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// A stored plan, its decision and its end read back the same after the
// database is closed and opened again; a ref is never overwritten; an
// ended plan keeps its decision but not its source.
func TestPlanRowsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a := PlanRow{Ref: "plan:a", Principal: "agent:w", Session: "s", Src: "rm /x", Plan: json.RawMessage(`{"effects":[{"kind":"fs_delete"}]}`),
		Verdict: "approval_required", Reasons: []string{"fs_delete /x"}, State: "pending", CreatedNS: 10, ExpiresNS: 100}
	b := PlanRow{Ref: "plan:b", Principal: "agent:w", Session: "s", Src: "ls", Plan: json.RawMessage(`{"effects":[]}`),
		Verdict: "allow", State: "allowed", CreatedNS: 20, ExpiresNS: 200}
	for _, r := range []PlanRow{a, b} {
		if err := d.PutPlan(&r); err != nil {
			t.Fatal(err)
		}
	}
	again := a
	again.Src = "something else"
	if err := d.PutPlan(&again); !errors.Is(err, ErrPlanExists) {
		t.Fatalf("second PutPlan of a ref = %v, want ErrPlanExists", err)
	}
	if err := d.UpdatePlans([]PlanUpdate{{Ref: "plan:a", State: "approved", Approver: "agent:lead", Ticket: "t1"},
		{Ref: "plan:b", State: "applied", EndedNS: 30}, {Ref: "plan:none", State: "denied"}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got := readPlans(t, d)
	wantA := a
	wantA.State, wantA.Approver, wantA.Ticket = "approved", "agent:lead", "t1"
	wantB := b
	wantB.State, wantB.EndedNS, wantB.Src, wantB.Plan = "applied", 30, "", json.RawMessage("null")
	if len(got) != 2 || !reflect.DeepEqual(got[0], wantA) || !reflect.DeepEqual(got[1], wantB) {
		t.Fatalf("plans after reopening:\n%+v\nwant\n%+v\n%+v", got, wantA, wantB)
	}
	if err := d.DeletePlans([]string{"plan:b"}); err != nil {
		t.Fatal(err)
	}
	if got := readPlans(t, d); len(got) != 1 || got[0].Ref != "plan:a" {
		t.Fatalf("after DeletePlans: %+v", got)
	}
}

// Plan writes and exec rows interleave: each plan write waits for the
// applier's batch, not SQLite's busy lock, and every row and plan is there
// afterwards.
func TestPlanRowsBesideExecRows(t *testing.T) {
	d := openTemp(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: "ls", Finished: true, OK: true}); err != nil {
				errs <- fmt.Errorf("row %d: %w", i, err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 100 {
			ref := fmt.Sprintf("plan:%03d", i)
			if err := d.PutPlan(&PlanRow{Ref: ref, Principal: "p", Session: "s", Src: "ls", Verdict: "allow", State: "allowed", CreatedNS: int64(i)}); err != nil {
				errs <- err
				return
			}
			if err := d.UpdatePlans([]PlanUpdate{{Ref: ref, State: "applied", EndedNS: int64(i + 1)}}); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := readPlans(t, d); len(got) != 100 || got[99].State != "applied" {
		t.Fatalf("%d plans, last %+v", len(got), got[len(got)-1])
	}
	es, _, err := d.Query(Query{Limit: 1000})
	if err != nil || len(es) != 200 {
		t.Fatalf("%d rows, %v", len(es), err)
	}
}

// A row past a bound is refused and nothing is stored.
func TestPlanRowBounds(t *testing.T) {
	d := openTemp(t)
	for name, r := range map[string]PlanRow{
		"source":    {Ref: "plan:1", Src: strings.Repeat("x", MaxSrcBytes+1)},
		"plan":      {Ref: "plan:2", Plan: json.RawMessage(`"` + strings.Repeat("x", MaxPlanBytes) + `"`)},
		"principal": {Ref: "plan:3", Principal: strings.Repeat("p", MaxFieldBytes+1)},
		"no ref":    {},
	} {
		if err := d.PutPlan(&r); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: %v, want ErrBadEntry", name, err)
		}
	}
	if got := readPlans(t, d); len(got) != 0 {
		t.Fatalf("stored %d refused plans", len(got))
	}
	d.Close()
	if err := d.PutPlan(&PlanRow{Ref: "plan:x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("PutPlan after Close = %v", err)
	}
}

// Close while plans are being written returns, and every write after it
// fails with an error rather than hang.
func TestPlanWritesDuringClose(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	closeDuring(t, d, "a write", func(i int) error {
		return d.PutPlan(&PlanRow{Ref: fmt.Sprintf("plan:%d", i), Principal: "p", Session: "s", State: "allowed"})
	})
}

// closeDuring runs op over and over on another goroutine, closes d once
// op has run once, and fails unless op then fails (rather than hang or
// go on succeeding); what names op in the failure.
func closeDuring(t *testing.T, d *DB, what string, op func(i int) error) {
	t.Helper()
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			err := op(i)
			if i == 0 {
				close(started)
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	<-started
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatalf("%s after Close succeeded", what)
	}
}

// A restart reads the stored plans through the plans_age index: SQLite's
// plan for plansQuery walks the index and sorts nothing, so a journal of
// many more plans than MaxPlanRows costs MaxPlanRows rows
// (TestHostileStoredPlansBound crosses it through the kernel binary).
func TestPlansReadThroughIndex(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.db.Query("EXPLAIN QUERY PLAN "+plansQuery, MaxPlanRows)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(steps, "; ")
	if !strings.Contains(plan, "plans_age") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("reading the stored plans: query plan %q, want the plans_age index and no sort", plan)
	}
}
