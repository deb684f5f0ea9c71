package journal

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A version 11 journal's rows read the same after migration 12 (the
// foreign keys made deferred, by the tables' text alone); the keys are
// still enforced, at the commit; the database passes SQLite's integrity
// check; and rows written after it are applied by the multi-row path.
func TestMigrateV11ToV12(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	old, err := openAt(path, 11, false)
	if err != nil {
		t.Fatal(err)
	}
	all := fixture(t, old, 300)
	if _, err := old.Record(&Entry{Session: "s1", Principal: "bob", Src: "2 + 2", OK: true, Verdict: "allow",
		Outputs: []Output{{Kind: OutValue, Hash: "blake3:" + strings.Repeat("b", 64), Len: 1}}}); err != nil {
		t.Fatal(err)
	}
	queries := []Query{{}, {Kind: "*"}, {Principal: "alice"}, {Session: "s2"}, {Limit: 3}}
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
	outsBefore := dumpTable(t, old.db, `SELECT * FROM outputs ORDER BY entry_id, seq`)
	var rows int
	if err := old.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	old.Close()

	d, err := openAt(path, SchemaVersion, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if after := read(d); !reflect.DeepEqual(before, after) {
		t.Fatalf("reads differ across migration 12")
	}
	if got := dumpTable(t, d.db, `SELECT * FROM outputs ORDER BY entry_id, seq`); !reflect.DeepEqual(got, outsBefore) {
		t.Fatalf("outputs differ across migration 12")
	}
	if len(before[1]) == 0 || len(all) == 0 {
		t.Fatal("no rows")
	}
	for _, name := range []string{"entries", "outputs"} {
		var text string
		if err := d.db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, `REFERENCES entries(id) DEFERRABLE INITIALLY DEFERRED`) {
			t.Errorf("%s: %s", name, text)
		}
	}
	var check string
	if err := d.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	// Still enforced, at the commit: an outputs row of no entry, and an
	// entry whose parent does not exist.
	for _, bad := range []string{
		`INSERT INTO outputs(entry_id, seq, kind, hash, len) VALUES (1099511627776, 0, 'value', 'h', 1)`,
		`INSERT INTO entries(kind, parent, session, principal, start_ns) VALUES ('stmt', 1099511627776, 's', 'p', 1)`,
	} {
		tx, err := d.db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(bad); err != nil {
			tx.Rollback()
			t.Fatalf("%s: refused before the commit: %v", bad, err)
		}
		if err := tx.Commit(); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
			t.Fatalf("%s: commit: %v, want a foreign key failure", bad, err)
		}
	}
	// And a row deleted under its outputs rows is refused likewise.
	var id int64
	if err := d.db.QueryRow(`SELECT entry_id FROM outputs LIMIT 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.Exec(`DELETE FROM entries WHERE id = ?`, id); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Fatalf("deleting row %d under its outputs: %v", id, err)
	}

	// New rows, past a multi-row insert's worth, through the applier.
	for i := range 2*multiRows + 3 {
		if _, err := d.Record(&Entry{Session: "s2", Principal: "alice", Src: "1 + 1", OK: true, Verdict: "allow",
			Outputs: []Output{{Kind: OutValue, Hash: "blake3:" + strings.Repeat("a", 63) + string(rune('0'+i%10)), Len: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&n); err != nil || n != rows+2*multiRows+3 {
		t.Fatalf("%d rows after, %v", n, err)
	}
	if d.skipped.Load() != 0 {
		t.Fatalf("%d writes skipped", d.skipped.Load())
	}
}
