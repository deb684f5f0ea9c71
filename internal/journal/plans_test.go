package journal

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// unindexed reports whether an EXPLAIN QUERY PLAN walks the whole entries
// table (or a whole index of it) or sorts.
func unindexed(plan string) bool {
	return strings.Contains(plan, "SCAN entries") || strings.Contains(plan, "USE TEMP B-TREE")
}

func planOf(t *testing.T, db *sql.DB, text string, args []any) string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+text, args...)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "; ")
	}
	return b.String()
}

// Every journal.query filter and every fixed lookup is planned on an index
// with this build's schema wherever it was with version 7's (the schema
// before the ok index became partial), and the fixed lookups always are.
func TestLookupPlans(t *testing.T) {
	d := openTemp(t)
	fixture(t, d, 20)
	old, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "v7.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := migrate(old, 7); err != nil {
		t.Fatal(err)
	}
	type plan struct {
		name string
		text string
		args []any
		must bool // indexed on every schema, not only where version 7 was
	}
	var plans []plan
	yes, no := true, false
	for _, q := range []Query{
		{}, {Kind: KindStmt}, {Kind: "*"},
		{Principal: "alice"}, {Principals: []string{"alice", "bob"}}, {Principals: []string{"alice"}, OwnIDs: true, Cursor: encodeCursor(9)},
		{Session: "s1"}, {Kind: "*", Session: "s1"}, {Head: "ls"}, {Kind: "*", Head: "ls"},
		{OK: &yes}, {OK: &no}, {Kind: KindStmt, OK: &no}, {Kind: "*", OK: &no}, {Kind: "*", OK: &yes},
		{Principal: "alice", OK: &no}, {Session: "s1", OK: &yes},
		{Kind: KindStmt, Parent: 1}, {Since: 1000, Until: 2000}, {Since: 1000},
		{Principal: "alice", Effects: []string{"fs_read"}}, {Effects: []string{"fs_read"}},
		{Cursor: encodeCursor(9)}, {OK: &no, Cursor: encodeCursor(9)},
	} {
		text, args, _, err := buildQuery(q, d.bits, walkPlan{})
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		plans = append(plans, plan{name: "journal.query " + strings.TrimPrefix(text, `SELECT `+entryCols+` FROM entries`), text: text, args: args})
	}
	// The plans of a window or effects query (window.go): walked in id
	// (own id) order, on an index and no sort; and a narrow window off
	// entries_start, sorting the at most MaxWindowRows rows of the window
	// (must: false, as the sort is the plan).
	for _, c := range []struct {
		q    Query
		wp   walkPlan
		must bool
	}{
		{Query{Since: 1000, Until: 2000}, walkPlan{}, true},
		{Query{Principal: "alice", Effects: []string{"fs_read"}}, walkPlan{}, true},
		{Query{Principals: []string{"alice"}, OwnIDs: true, Since: 1000, Cursor: encodeCursor(9)}, walkPlan{}, true},
		{Query{Since: 1000, Until: 2000}, walkPlan{byStart: true}, false},
		{Query{Since: 1000, Principal: "alice"}, walkPlan{byStart: true}, false},
		// A deep window (window.go): the walk bounded by the window's ids.
		{Query{Until: 2000}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Since: 1000, Until: 2000, Principal: "alice"}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Principals: []string{"alice"}, OwnIDs: true}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Principals: []string{"alice"}, OwnIDs: true, Cursor: encodeCursor(9)}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Effects: []string{"fs_read"}}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Session: "s1"}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Head: "ls"}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, OK: &no}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
		{Query{Until: 2000, Cursor: encodeCursor(15)}, walkPlan{byIDs: true, idLo: 10, idHi: 20}, true},
	} {
		text, args, _, err := buildQuery(c.q, d.bits, c.wp)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		plans = append(plans, plan{name: "journal.query " + strings.TrimPrefix(text, `SELECT `+entryCols+` FROM entries`), text: text, args: args, must: c.must})
	}
	for _, q := range []SeqQuery{
		{Transcript: true, Principal: "alice", Session: "s1", After: 3},
		{Transcript: true, Principal: "alice", Session: "s1", After: 3, Before: 9, Tail: true},
		{After: 3}, {After: 3, Before: 9, Tail: true}, {Principals: []string{"alice", "bob"}, After: 3},
	} {
		text, args, err := bySeqQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, plan{name: "BySeq " + text, text: text, args: args, must: true})
	}
	for name, l := range map[string]struct {
		text string
		args []any
	}{
		"LastTSeq":  {sqlLastTSeq, []any{"alice", "s1"}},
		"ByRef":     {sqlByRef, []any{"alice", "s1", 3}},
		"MaxRef":    {sqlMaxRef, []any{"alice", "s1"}},
		"SeqOfPSeq": {sqlSeqOfPSeq, []any{"alice", 3}},
		"LastPSeq":  {sqlLastPSeq, []any{"alice"}},
		"LastPID":   {sqlLastPID, []any{"alice"}},
		"GetOwn":    {sqlGetOwn, []any{"alice", 3}},
	} {
		plans = append(plans, plan{name: name, text: l.text, args: l.args, must: true})
	}
	for _, p := range plans {
		now, before := planOf(t, d.db, p.text, p.args), planOf(t, old, p.text, p.args)
		switch {
		case unindexed(now) && (p.must || !unindexed(before)):
			t.Errorf("%s: plan %q (version 7: %q)", p.name, now, before)
		case testing.Verbose():
			t.Logf("%s: %s", p.name, now)
		}
	}
}
