package journal

import (
	"path/filepath"
	"reflect"
	"testing"
)

// A version 7 journal's rows read the same after migration 8 (the ok
// index made partial), every ok filter finds what the model says before
// and after, and a row failed after the migration is found by ok = false.
func TestMigrateV7RowsToV8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	old, err := openAt(path, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	all := fixture(t, old, 40)
	yes, no := true, false
	queries := []Query{
		{}, {Kind: "*"}, {OK: &yes}, {OK: &no}, {Kind: "*", OK: &no}, {Kind: "*", OK: &yes},
		{Principal: "alice", OK: &no}, {Session: "s2", OK: &yes}, {Head: "ls", OK: &no},
		{OK: &no, Limit: 3}, {OK: &yes, Limit: 3},
	}
	read := func(d *DB) [][]Entry {
		t.Helper()
		var out [][]Entry
		for _, q := range queries {
			es, _, err := d.Query(q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			out = append(out, es)
		}
		return out
	}
	before := read(old)
	old.Close()

	d, err := openAt(path, SchemaVersion, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'entries_ok'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("entries_ok still there (%d), %v", n, err)
	}
	after := read(d)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("reads differ across migration 8:\nbefore %+v\nafter  %+v", before, after)
	}
	for i, q := range queries {
		if q.Kind == "*" || q.Limit != 0 {
			continue // the model knows exec rows, unpaged
		}
		if want := model(all, q); !sameIDs(after[i], want) {
			t.Errorf("%+v: %d rows, model %d", q, len(after[i]), len(want))
		}
	}

	id, err := d.Begin(&Entry{Session: "s9", Principal: "dave", Src: "false"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(id, &Entry{OK: false}); err != nil {
		t.Fatal(err)
	}
	failed, _, err := d.Query(Query{OK: &no, Limit: 1})
	if err != nil || len(failed) != 1 || failed[0].ID != id {
		t.Fatalf("newest failed row: %+v, %v; want id %d", failed, err, id)
	}
	ok, _, err := d.Query(Query{OK: &yes, Limit: 1})
	if err != nil || len(ok) != 1 || ok[0].ID == id || !ok[0].OK {
		t.Fatalf("newest ok row: %+v, %v", ok, err)
	}
}

func sameIDs(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}
