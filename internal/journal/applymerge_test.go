package journal

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// stopApplier stops d's background applier, so that a test takes the
// logged writes itself (as BenchmarkApply does), and restarts it when the
// test ends (Close waits for it).
func stopApplier(t *testing.T, d *DB) {
	t.Helper()
	close(d.ap.stop)
	<-d.ap.done
	t.Cleanup(func() {
		d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
		go d.runApplier()
	})
}

// dumpTable is every row of a table, every column, in key order, as text.
func dumpTable(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		line := ""
		for i, c := range cols {
			v := vals[i]
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			line += fmt.Sprintf("%s=%#v ", c, v)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApplyMergedFinishes: a batch that holds a row's start and its
// finish inserts the finished row once (mergeFinishes), and the database
// it leaves is the same, column for column and outputs row for outputs
// row, as applying each write in a batch of its own (an insert, then the
// finish's read and update).
func TestApplyMergedFinishes(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() }) // after the applier's restart
	// A principal's first row reads its last seqs, applying what is
	// pending: write one for each before the batch is gathered.
	for _, p := range []string{"alice", "bob", "carol"} {
		if _, err := a.Record(&Entry{Session: "warm", Principal: p, Src: "0", OK: true, Verdict: "allow"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.sync(); err != nil {
		t.Fatal(err)
	}
	stopApplier(t, a)
	st := 3
	effs := json.RawMessage(`[{"kind":"fs_read","path":"/tmp"}]`)
	begin := func(e *Entry) int64 {
		t.Helper()
		id, err := a.Begin(e)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	finish := func(id int64, e *Entry) {
		t.Helper()
		if err := a.Finish(id, e); err != nil {
			t.Fatal(err)
		}
	}
	// Finished with outputs, a status and a ref, its effects replaced.
	one := begin(&Entry{Session: "s", Principal: "alice", Cwd: "/w", Src: "^true", Effects: effs})
	// Another, finished with nothing but its verdict. (Not a statement
	// row: beginning one reads its parent, which applies what is pending.)
	child := begin(&Entry{Session: "u", Principal: "carol", Src: "^ls", Effects: effs})
	// Left open in this batch.
	open := begin(&Entry{Session: "s", Principal: "bob", Src: "^sleep 60", Effects: effs})
	// Written whole.
	if _, err := a.Record(&Entry{Session: "s", Principal: "alice", Src: "1 + 1", OK: true, Verdict: "allow",
		Outputs: []Output{{Kind: OutValue, Hash: "blake3:" + fmt.Sprintf("%064x", 1), Len: 17}}}); err != nil {
		t.Fatal(err)
	}
	// Begun with outputs, finished with none given (keeps them).
	keeps := begin(&Entry{Session: "t", Principal: "alice", Src: "x", Effects: effs,
		Outputs: []Output{{Kind: OutStdout, Hash: "blake3:" + fmt.Sprintf("%064x", 2), Len: 5}}})
	finish(child, &Entry{OK: true, Verdict: "allow"})
	finish(one, &Entry{OK: false, Status: &st, Verdict: "allow", Code: "exit", RefN: 7,
		Effects: json.RawMessage(`[{"kind":"proc_spawn","program":"true"}]`),
		Outputs: []Output{{Kind: OutValue, Hash: "blake3:" + fmt.Sprintf("%064x", 3), Len: 40}, {Kind: OutStderr, Hash: "blake3:" + fmt.Sprintf("%064x", 4), Len: 9}}})
	finish(keeps, &Entry{OK: true, Verdict: "allow"})
	_ = open

	var ops []*logOp
	for more := a.ap.take(); len(more) > 0; more = a.ap.take() {
		ops = append(ops, more...)
	}
	merges, absorbed := mergeFinishes(ops)
	if len(merges) != 3 || len(absorbed) != 3 {
		t.Fatalf("%d merges, %d finishes absorbed of %d writes; want 3 and 3", len(merges), len(absorbed), len(ops))
	}
	a.ap.amu.Lock()
	err = a.applyOps(ops)
	a.ap.amu.Unlock()
	if err != nil {
		t.Fatal(err)
	}

	b, err := Open(filepath.Join(dir, "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	stopApplier(t, b)
	b.ap.amu.Lock()
	for _, op := range ops {
		if err := b.applyOps([]*logOp{op}); err != nil {
			b.ap.amu.Unlock()
			t.Fatal(err)
		}
	}
	b.ap.amu.Unlock()
	if a.skipped.Load() != 0 || b.skipped.Load() != 0 {
		t.Fatalf("skipped writes: %d merged, %d one by one", a.skipped.Load(), b.skipped.Load())
	}
	// The batch's rows: those after the three warming ones, which only
	// the first database has.
	for _, q := range []string{`SELECT * FROM entries WHERE id > 3 ORDER BY id`, `SELECT * FROM outputs WHERE entry_id > 3 ORDER BY entry_id, seq`} {
		got, want := dumpTable(t, a.db, q), dumpTable(t, b.db, q)
		if len(got) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s\nmerged:\n%v\none by one:\n%v", q, got, want)
		}
	}
}
