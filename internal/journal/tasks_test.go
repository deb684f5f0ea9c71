package journal

import (
	"path/filepath"
	"testing"
)

// TestTaskRows: rows are saved and replaced, the running ones marked
// interrupted (with an end) by InterruptTasks, trimmed oldest-ended first
// per principal and in all (never a running one), and forgotten per
// session; they survive a reopen.
func TestTaskRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	save := func(r TaskRow) {
		t.Helper()
		if err := d.SaveTask(r); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 6; i++ {
		save(TaskRow{Principal: "alice", Session: "work", Seq: i, State: "completed", StartedNs: i, FinishedNs: i + 1, OutBytes: 10 * i})
	}
	save(TaskRow{Principal: "alice", Session: "work", Seq: 7, State: "running", StartedNs: 0, OutBytes: -1})
	save(TaskRow{Principal: "bob", Session: "s", Seq: 1, State: "running", StartedNs: 8, OutBytes: -1})
	save(TaskRow{Principal: "bob", Session: "s", Seq: 1, State: "cancelling", StartedNs: 8, OutBytes: -1}) // replaces
	gone, err := d.TrimTasks("alice", 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	// alice: 7 rows, bound 4: the 3 oldest ended go; then 5 in all (4 +
	// bob's 1): none more.
	if len(gone) != 3 || gone[0].Seq != 1 || gone[2].Seq != 3 {
		t.Fatalf("trimmed %+v", gone)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if d, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n, err := d.InterruptTasks(); err != nil || n != 2 {
		t.Fatalf("interrupted %d, %v; want 2", n, err)
	}
	rows, err := d.SessionTasks("alice", "work")
	if err != nil || len(rows) != 4 || rows[3].Seq != 7 || rows[3].State != "interrupted" || rows[3].FinishedNs == 0 || rows[0].OutBytes != 40 {
		t.Fatalf("alice's rows after a reopen = %+v, %v", rows, err)
	}
	if err := d.ForgetSessionTasks("alice", "work"); err != nil {
		t.Fatal(err)
	}
	all, err := d.Tasks()
	if err != nil || len(all) != 1 || all[0].Principal != "bob" || all[0].State != "interrupted" {
		t.Fatalf("rows after forgetting alice's session = %+v, %v", all, err)
	}
}
