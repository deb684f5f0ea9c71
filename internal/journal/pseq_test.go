package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// Each principal's finished exec rows are numbered densely among its own
// (PSeq), whatever other principals run in between and in whatever order
// its rows finish; a reopened journal continues each numbering; SeqOfPSeq
// maps a principal's number back to the journal channel's seq.
func TestPSeqPerPrincipal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var seqs = map[string][]uint64{}
	var pseqs = map[string][]uint64{}
	d.OnFinish(func(e *Entry) {
		seqs[e.Principal] = append(seqs[e.Principal], e.Seq)
		pseqs[e.Principal] = append(pseqs[e.Principal], e.PSeq)
	})
	long, err := d.Begin(&Entry{Session: "s", Principal: "bob", Src: "rm x"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		for range 3 {
			if _, err := d.Record(&Entry{Session: "s", Principal: "alice", Src: "1", OK: true}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Record(&Entry{Session: "t", Principal: "bob", Src: "2", OK: true}); err != nil {
			t.Fatal(err)
		}
		if i == 2 { // finished with an Entry that does not say whose it is
			if err := d.Finish(long, &Entry{OK: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	dense := func(who string, n int) {
		t.Helper()
		got := pseqs[who]
		if len(got) != n {
			t.Fatalf("%s: pseqs %v, want 1..%d", who, got, n)
		}
		for i, p := range got {
			if p != uint64(i+1) {
				t.Fatalf("%s: pseqs %v, want 1..%d", who, got, n)
			}
		}
	}
	dense("alice", 15)
	dense("bob", 6)
	if p, err := d.LastPSeq("bob"); err != nil || p != 6 {
		t.Fatalf("LastPSeq(bob) = %d, %v", p, err)
	}
	for i, p := range pseqs["bob"] {
		if s, err := d.SeqOfPSeq("bob", p); err != nil || s != seqs["bob"][i] {
			t.Fatalf("SeqOfPSeq(bob, %d) = %d, %v; want %d", p, s, err, seqs["bob"][i])
		}
	}
	if s, _ := d.SeqOfPSeq("bob", 0); s != 0 {
		t.Fatalf("SeqOfPSeq(bob, 0) = %d", s)
	}
	if s, _ := d.SeqOfPSeq("bob", 99); s != seqs["bob"][5] {
		t.Fatalf("SeqOfPSeq past the end = %d, want bob's last seq %d", s, seqs["bob"][5])
	}
	rows, err := d.BySeq(SeqQuery{Principals: []string{"bob"}})
	if err != nil || len(rows) != 6 {
		t.Fatalf("bob's rows: %v %d", err, len(rows))
	}
	for i, r := range rows {
		if r.PSeq != uint64(i+1) {
			t.Fatalf("bob's row %d read back with pseq %d", i, r.PSeq)
		}
	}
	d.Close()

	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if p, _ := d.LastPSeq("alice"); p != 15 {
		t.Fatalf("reopened LastPSeq(alice) = %d", p)
	}
	e := &Entry{Session: "s", Principal: "alice", Src: "1", OK: true}
	if _, err := d.Record(e); err != nil || e.PSeq != 16 {
		t.Fatalf("after reopen: %v pseq %d", err, e.PSeq)
	}
	c := &Entry{Session: "u", Principal: "carol", Src: "1", OK: true}
	if _, err := d.Record(c); err != nil || c.PSeq != 1 {
		t.Fatalf("a new principal: %v pseq %d", err, c.PSeq)
	}
}

// Each principal's exec rows are numbered densely among its own when
// written (PID), Begin and Record alike, statement rows not at all; a
// query with OwnIDs pages by them, and GetOwn finds a row by one.
func TestPIDPerPrincipal(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var bobs []int64
	for i := range 4 {
		if _, err := d.Record(&Entry{Session: "s", Principal: "alice", Src: "1", OK: true}); err != nil {
			t.Fatal(err)
		}
		e := &Entry{Session: "t", Principal: "bob", Src: "2", Effects: []byte(`[{"kind":"fs_write"}]`)}
		id, err := d.Begin(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Record(&Entry{Kind: KindStmt, Parent: id, Session: "t", Principal: "bob", Src: "2", OK: true}); err != nil {
			t.Fatal(err)
		}
		if e.PID != int64(i+1) {
			t.Fatalf("bob's row %d has pid %d", i, e.PID)
		}
		bobs = append(bobs, id)
		if err := d.Finish(id, &Entry{OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	page, next, err := d.Query(Query{Principals: []string{"bob"}, OwnIDs: true, Limit: 3})
	if err != nil || len(page) != 3 || page[0].PID != 4 || page[2].PID != 2 || next == "" {
		t.Fatalf("bob's first page: %v %+v next %q", err, page, next)
	}
	page, _, err = d.Query(Query{Principals: []string{"bob"}, OwnIDs: true, Cursor: next})
	if err != nil || len(page) != 1 || page[0].PID != 1 || page[0].ID != bobs[0] {
		t.Fatalf("bob's second page: %v %+v", err, page)
	}
	if e, err := d.GetOwn("bob", 3); err != nil || e.ID != bobs[2] {
		t.Fatalf("GetOwn(bob, 3) = %+v, %v", e, err)
	}
	if _, err := d.GetOwn("bob", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetOwn past the end: %v", err)
	}
	if _, _, err := d.Query(Query{OwnIDs: true}); !errors.Is(err, ErrBadQuery) {
		t.Fatalf("OwnIDs without one principal: %v", err)
	}
}

// Migration 6 numbers the rows of an older journal: pseq over each
// principal's finished exec rows in seq order, pid over its exec rows in
// id order, statement rows neither.
func TestMigrationNumbersOwnRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(raw, 5); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		kind, principal string
		seq             any
	}{{"exec", "a", 1}, {"exec", "b", 2}, {"stmt", "b", nil}, {"exec", "a", nil}, {"exec", "a", 3}, {"exec", "b", 4}}
	for i, r := range rows {
		parent := any(nil)
		if r.kind == "stmt" {
			parent = 2
		}
		if _, err := raw.Exec(`INSERT INTO entries(id, kind, parent, session, principal, start_ns, seq) VALUES (?, ?, ?, 's', ?, 1, ?)`,
			i+1, r.kind, parent, r.principal, r.seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrate(raw, SchemaVersion); err != nil {
		t.Fatal(err)
	}
	var got []string
	q, err := raw.Query(`SELECT coalesce(pseq, 0), coalesce(pid, 0) FROM entries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for q.Next() {
		var p, id int64
		if err := q.Scan(&p, &id); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d/%d", p, id))
	}
	q.Close()
	raw.Close()
	// a: rows 1, 4 (unfinished), 5; b: rows 2, 3 (stmt), 6.
	if want := "[1/1 1/1 0/0 0/2 2/3 2/2]"; fmt.Sprint(got) != want {
		t.Fatalf("pseq/pid by row: %v, want %s", got, want)
	}
}
