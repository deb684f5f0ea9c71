package journal

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A version 6 journal with rows, written as version 6's applier wrote
// them (outputs_json set, the outputs table filled by its triggers), reads
// the same after migration 7, and its rows' outputs stay findable by
// hash; a row finished after the migration replaces its outputs rows
// without the triggers, and a new row gets its outputs rows from the
// applier.
func TestMigrateV6RowsToV7(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(raw, 6); err != nil {
		t.Fatal(err)
	}
	hash := func(c byte) string { return "blake3:" + strings.Repeat(string(c), 64) }
	st := 3
	rows := []Entry{
		{ID: 1, Kind: KindExec, Session: "s1", Principal: "alice", StartNS: 10, FinishNS: 20, Finished: true, Cwd: "/w",
			Src: "ls -la", Head: "ls", Verdict: "allowed", OK: true, RefN: 1, Seq: 1, TSeq: 1, PSeq: 1, PID: 1,
			Effects: json.RawMessage(`[{"kind":"fs_read"}]`),
			Outputs: []Output{{Kind: OutValue, Hash: hash('a'), Len: 12}, {Kind: OutStdout, Hash: hash('b'), Len: 400}}},
		{ID: 2, Kind: KindExec, Session: "s1", Principal: "bob", StartNS: 30, FinishNS: 40, Finished: true,
			Src: "false", Head: "false", Verdict: "allowed", Status: &st, Code: "E_STATUS", Seq: 2, TSeq: 1, PSeq: 1, PID: 1,
			Outputs: []Output{{Kind: OutStderr, Hash: hash('c'), Len: 7}}},
		{ID: 3, Kind: KindStmt, Parent: 1, Session: "s1", Principal: "alice", StartNS: 11, FinishNS: 12, Finished: true,
			Src: "ls", Head: "ls", OK: true, Outputs: []Output{{Kind: OutValue, Hash: hash('d'), Len: 3}}},
		// Begun, not finished: its outputs are replaced by a Finish
		// applied after the migration.
		{ID: 4, Kind: KindExec, Session: "s2", Principal: "alice", StartNS: 50, Src: "sleep 1", Head: "sleep", PID: 2,
			Outputs: []Output{{Kind: OutStdout, Hash: hash('e'), Len: 5}}},
		{ID: 5, Kind: KindExec, Session: "s2", Principal: "alice", StartNS: 60, FinishNS: 61, Finished: true,
			Src: "1 + 1", Head: "1", OK: true, Seq: 3, TSeq: 1, PSeq: 2, PID: 3, Outputs: []Output{}},
	}
	for _, e := range rows {
		outs, err := outputsJSON(e.Outputs)
		if err != nil {
			t.Fatal(err)
		}
		var mask int64
		if e.ID == 1 {
			if _, err := raw.Exec(`INSERT INTO effect_bits(kind, bit) VALUES ('fs_read', 0)`); err != nil {
				t.Fatal(err)
			}
			mask = 1
		}
		if _, err := raw.Exec(`INSERT INTO entries(id, kind, parent, session, principal, start_ns, cwd, head,
			effect_mask, verdict, ok, status, opaque, outputs_json, finished, finish_ns, ref_n, code, seq, tseq, pseq, pid, packed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.Kind, nullID(e.Parent), e.Session, e.Principal, e.StartNS, e.Cwd, e.Head, mask, e.Verdict, b2i(e.OK),
			nullInt(e.Status), b2i(e.Opaque), string(outs), b2i(e.Finished), e.FinishNS, nullID(e.RefN), e.Code,
			nullSeq(e.Seq), nullSeq(e.TSeq), nullSeq(e.PSeq), nullID(e.PID), packEntry(&e, mask, string(outs))); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM outputs`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("version 6's triggers wrote %d outputs rows, %v; want 5", n, err)
	}
	raw.Close()

	type view struct {
		all, own, stmts []Entry
		refs            []bool
		hashes          []string
		cutoff          int64
	}
	read := func(d *DB) view {
		t.Helper()
		var v view
		var err error
		if v.all, _, err = d.Query(Query{Kind: "*"}); err != nil || len(v.all) != len(rows) {
			t.Fatalf("query: %d rows, %v", len(v.all), err)
		}
		if v.own, _, err = d.Query(Query{Principals: []string{"alice"}, OwnIDs: true}); err != nil {
			t.Fatal(err)
		}
		if v.stmts, _, err = d.Query(Query{Kind: KindStmt, Parent: 1}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []byte("abcdez") {
			ok, err := d.References(hash(c), "")
			if err != nil {
				t.Fatal(err)
			}
			v.refs = append(v.refs, ok)
		}
		if v.hashes, err = d.HashesBefore(3, 100); err != nil {
			t.Fatal(err)
		}
		slices.Sort(v.hashes)
		if v.cutoff, err = d.PruneCutoff(1<<20, 100, 1<<20); err != nil {
			t.Fatal(err)
		}
		return v
	}
	old, err := openAt(path, 6, false)
	if err != nil {
		t.Fatal(err)
	}
	before := read(old)
	old.Close()

	d, err := openAt(path, SchemaVersion, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var trig int
	if err := d.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger'`).Scan(&trig); err != nil || trig != 0 {
		t.Fatalf("%d triggers left, %v", trig, err)
	}
	after := read(d)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("reads differ across migration 7:\nbefore %+v\nafter  %+v", before, after)
	}
	if want := []bool{true, true, true, true, true, false}; !slices.Equal(after.refs, want) {
		t.Fatalf("references %v, want %v", after.refs, want)
	}

	// Row 4, begun under version 6, finished now with other outputs, as
	// a replay of the intent log would (LSN 0: the log is empty).
	newOuts, _ := outputsJSON([]Output{{Kind: OutValue, Hash: hash('z'), Len: 1}})
	d.ap.amu.Lock()
	err = d.applyOps([]*logOp{{Finish: true, ID: 4, FinishNS: 70, OK: true, Outputs: newOuts, Seq: 100, PSeq: 100}})
	d.ap.amu.Unlock()
	if err != nil || d.skipped.Load() != 0 {
		t.Fatalf("finish after migration: %v (%d skipped)", err, d.skipped.Load())
	}
	got, err := d.Get(4)
	if err != nil || !got.Finished || len(got.Outputs) != 1 || got.Outputs[0].Hash != hash('z') {
		t.Fatalf("row 4 after finish: %+v, %v", got, err)
	}
	for c, want := range map[byte]bool{'e': false, 'z': true} {
		if ok, err := d.References(hash(c), "alice"); err != nil || ok != want {
			t.Fatalf("references %c after finish: %v, %v; want %v", c, ok, err, want)
		}
	}
	// A new row: its outputs rows come from the applier, not outputs_json.
	e := &Entry{Session: "s3", Principal: "carol", Src: "echo", Outputs: []Output{{Kind: OutValue, Hash: hash('f'), Len: 2}, {Kind: OutStdout, Hash: hash('g'), Len: 3}}}
	id, err := d.Record(e)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := d.References(hash('g'), "carol"); err != nil || !ok || d.skipped.Load() != 0 {
		t.Fatalf("new row's output not referenced: %v, %v (%d writes skipped)", ok, err, d.skipped.Load())
	}
	var seqs, js string
	if err := d.db.QueryRow(`SELECT group_concat(seq || ':' || kind, ','), (SELECT outputs_json FROM entries WHERE id = ?1)
		FROM outputs WHERE entry_id = ?1`, id).Scan(&seqs, &js); err != nil || seqs != "0:value,1:stdout" || js != "[]" {
		t.Fatalf("new row's outputs rows %q, outputs_json %q, %v", seqs, js, err)
	}
}

// nullInt is a status column's value, as the applier wrote it when it
// still wrote the columns only packed serves.
func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}
