package journal

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// multiFixture writes to d, its applier stopped, a batch of rows of every
// shape that reaches the multi-row statements past their multiRows
// (written whole with none, one and three outputs, begun and finished in
// the batch, begun and left open, finishes of rows an earlier batch
// inserted) and returns the batch's writes.
func multiFixture(t *testing.T, d *DB) []*logOp {
	t.Helper()
	// Rows an earlier batch inserts, finished in the batch below.
	var earlier []int64
	for i := range 5 {
		id, err := d.Begin(&Entry{Session: "old", Principal: "alice", Src: fmt.Sprintf("^sleep %d", i), StartNS: int64(1 + i)})
		if err != nil {
			t.Fatal(err)
		}
		earlier = append(earlier, id)
	}
	// A session's first row reads its last numbers, applying what is
	// pending: write one for each session of the batch first.
	for i := range 96 {
		p, s := []string{"alice", "bob", "carol"}[i%3], fmt.Sprintf("s%02d", i/3)
		if _, err := d.Record(&Entry{Session: s, Principal: p, Src: "0", OK: true, Verdict: "allow", Transcript: true,
			StartNS: int64(10 + i), FinishNS: int64(10 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	stopApplier(t, d)
	hash := func(i, j int) string { return "blake3:" + fmt.Sprintf("%060x%04x", i, j) }
	st := 1
	var open []int64
	for i := range 3*multiRows + 7 {
		ns := int64(1000 + i)
		p := []string{"alice", "bob", "carol"}[i%3]
		s := fmt.Sprintf("s%02d", i%32)
		switch i % 5 {
		case 0, 1: // written whole, one output
			if _, err := d.Record(&Entry{Session: s, Principal: p, Src: "1 + 1", OK: true, Verdict: "allow", RefN: int64(i + 1),
				Transcript: true, StartNS: ns, FinishNS: ns, Outputs: []Output{{Kind: OutValue, Hash: hash(i, 0), Len: 1}}}); err != nil {
				t.Fatal(err)
			}
		case 2: // written whole, no output, failed
			if _, err := d.Record(&Entry{Session: s, Principal: p, Src: "^false", OK: false, Status: &st, Verdict: "allow", StartNS: ns, FinishNS: ns}); err != nil {
				t.Fatal(err)
			}
		case 3: // begun; finished below with three outputs
			id, err := d.Begin(&Entry{Session: s, Principal: p, Cwd: "/w", Src: "^ls", StartNS: ns})
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, id)
		case 4: // begun and left open, one output
			if _, err := d.Begin(&Entry{Session: s, Principal: p, Src: "^cat", StartNS: ns,
				Outputs: []Output{{Kind: OutStdout, Hash: hash(i, 1), Len: 3}}}); err != nil {
				t.Fatal(err)
			}
		}
		if i%40 == 39 && len(earlier) > 0 {
			if err := d.Finish(earlier[0], &Entry{OK: true, Verdict: "allow", FinishNS: ns,
				Outputs: []Output{{Kind: OutStdout, Hash: hash(i, 2), Len: 8}}}); err != nil {
				t.Fatal(err)
			}
			earlier = earlier[1:]
		}
	}
	for k, id := range open {
		outs := []Output{{Kind: OutValue, Hash: hash(k, 3), Len: 2}, {Kind: OutStdout, Hash: hash(k, 4), Len: 4}, {Kind: OutStderr, Hash: hash(k, 5), Len: 6}}
		if err := d.Finish(id, &Entry{OK: k%2 == 0, Verdict: "allow", FinishNS: int64(2000 + k), Outputs: outs}); err != nil {
			t.Fatal(err)
		}
	}
	return takePendingT(d)
}

func takePendingT(d *DB) []*logOp {
	var ops []*logOp
	for more := d.ap.take(); len(more) > 0; more = d.ap.take() {
		ops = append(ops, more...)
	}
	return ops
}

// applyBatchT applies ops in one batch on d.
func applyBatchT(t *testing.T, d *DB, ops []*logOp) {
	t.Helper()
	d.ap.amu.Lock()
	err := d.applyOps(ops)
	d.ap.amu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
}

// sameTables fails unless a and b hold the same rows in entries, outputs
// and sqlite_sequence.
func sameTables(t *testing.T, a, b *DB) {
	t.Helper()
	for _, q := range []string{`SELECT * FROM entries ORDER BY id`, `SELECT * FROM outputs ORDER BY entry_id, seq`,
		`SELECT * FROM sqlite_sequence ORDER BY name`, `SELECT * FROM journal_log`} {
		got, want := dumpTable(t, a.db, q), dumpTable(t, b.db, q)
		if len(got) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s\nmulti-row: %d rows\nrow at a time: %d rows", q, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("first difference:\n%s\n%s", got[i], want[i])
					break
				}
			}
		}
	}
}

// TestApplyMultiRows: a batch applied by the multi-row statements writes
// the same rows as the same batch applied a row at a time.
func TestApplyMultiRows(t *testing.T) {
	dir := t.TempDir()
	var dbs [2]*DB
	var batches [2][]*logOp
	for i, name := range []string{"multi.db", "rows.db"} {
		d, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		d.rowAtATime = i == 1
		dbs[i] = d
		batches[i] = multiFixture(t, d)
	}
	if len(batches[0]) < 3*multiRows {
		t.Fatalf("a batch of %d writes does not reach the multi-row statements", len(batches[0]))
	}
	for i, d := range dbs {
		applyBatchT(t, d, batches[i])
		if d.skipped.Load() != 0 {
			t.Fatalf("%d writes skipped", d.skipped.Load())
		}
	}
	sameTables(t, dbs[0], dbs[1])
	var n int
	if err := dbs[0].db.QueryRow(`SELECT count(*) FROM outputs`).Scan(&n); err != nil || n < 2*multiRows {
		t.Fatalf("%d outputs rows (%v): the outputs' multi-row statement not reached", n, err)
	}
}

// TestApplyMultiRefused: a row SQLite refuses inside a multi-row
// statement (a write that cannot happen: here, an id already taken)
// rolls the multi-row attempt back, and the batch is applied a row at a
// time with that row alone skipped, as before.
func TestApplyMultiRefused(t *testing.T) {
	dir := t.TempDir()
	var dbs [2]*DB
	var batches [2][]*logOp
	for i, name := range []string{"multi.db", "rows.db"} {
		d, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		d.rowAtATime = i == 1
		dbs[i] = d
		ops := multiFixture(t, d)
		// The tenth write is made a second insert of the first row
		// (applied by an earlier batch): a primary key SQLite refuses.
		bad := *ops[9]
		bad.Finish, bad.ID, bad.Kind = false, 1, "exec"
		ops[9] = &bad
		batches[i] = ops
	}
	for i, d := range dbs {
		applyBatchT(t, d, batches[i])
	}
	if a, b := dbs[0].skipped.Load(), dbs[1].skipped.Load(); a != 1 || b != 1 {
		t.Fatalf("skipped: %d multi-row, %d a row at a time; want 1 and 1", a, b)
	}
	sameTables(t, dbs[0], dbs[1])
	if got, want := dbs[0].ap.applied.Load(), batches[0][len(batches[0])-1].LSN; got != want {
		t.Fatalf("applied LSN %d, want %d", got, want)
	}
}

// TestApplyMultiNumbered: when SQLite would number a multi-row insert's
// rows otherwise than the journal did (its sequence here moved past the
// journal's ids), the batch is rolled back and applied a row at a time
// with the journal's ids: the same rows as the other path, none skipped.
func TestApplyMultiNumbered(t *testing.T) {
	dir := t.TempDir()
	var dbs [2]*DB
	var batches [2][]*logOp
	for i, name := range []string{"multi.db", "rows.db"} {
		d, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		d.rowAtATime = i == 1
		dbs[i] = d
		batches[i] = multiFixture(t, d)
	}
	if _, err := dbs[0].db.Exec(`UPDATE sqlite_sequence SET seq = seq + 1000 WHERE name = 'entries'`); err != nil {
		t.Fatal(err)
	}
	for i, d := range dbs {
		applyBatchT(t, d, batches[i])
		if d.skipped.Load() != 0 {
			t.Fatalf("%d writes skipped", d.skipped.Load())
		}
	}
	for _, q := range []string{`SELECT * FROM entries ORDER BY id`, `SELECT * FROM outputs ORDER BY entry_id, seq`} {
		if got, want := dumpTable(t, dbs[0].db, q), dumpTable(t, dbs[1].db, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d rows against %d", q, len(got), len(want))
		}
	}
}

// TestApplyMultiNoParent: a row whose parent is missing (the key is
// checked at the commit since migration 12) fails the multi-row batch's
// commit; applied a row at a time, that row alone is skipped and the
// rest commit.
func TestApplyMultiNoParent(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "multi.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	ops := multiFixture(t, d)
	bad := *ops[5] // a row written whole
	if bad.Finish || !bad.Finished {
		t.Fatalf("write 5 is not a whole row: %+v", bad)
	}
	bad.Parent = 1 << 40
	ops[5] = &bad
	applyBatchT(t, d, ops)
	if d.skipped.Load() != 1 {
		t.Fatalf("%d writes skipped, want 1", d.skipped.Load())
	}
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM entries WHERE id = ?`, bad.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the orphan row: %d, %v", n, err)
	}
	if err := d.db.QueryRow(`SELECT count(*) FROM entries WHERE id = ?`, bad.ID+1).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the row after it: %d, %v", n, err)
	}
	if err := d.db.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("foreign key check: %d, %v", n, err)
	}
}
