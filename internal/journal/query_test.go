package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fixture writes n exec entries with fields that vary independently and
// returns them as stored (with ids), oldest first.
func fixture(t testing.TB, d *DB, n int) []Entry {
	t.Helper()
	principals := []string{"alice", "bob", "carol"}
	sessions := []string{"s1", "s2", "s3", "s4", "s5"}
	srcs := []string{"ls -la", "cat x", "rm y", "echo hi", "1 + 1", "ls"}
	effs := []string{`[]`, `[{"kind":"fs_read"}]`, `[{"kind":"fs_read"},{"kind":"fs_write"}]`,
		`[{"kind":"fs_delete","path":"/y"},{"kind":"fs_read"}]`, `[{"kind":"proc_spawn"},{"kind":"fs_write"},{"kind":"fs_read"}]`}
	var out []Entry
	for i := range n {
		e := Entry{Session: sessions[i%len(sessions)], Principal: principals[(i/2)%len(principals)],
			StartNS: int64(1000 + i*10), Src: srcs[i%len(srcs)], Effects: json.RawMessage(effs[(i/3)%len(effs)])}
		id, err := d.Begin(&e)
		if err != nil {
			t.Fatal(err)
		}
		if i%7 != 6 { // every seventh stays unfinished
			if err := d.Finish(id, &Entry{OK: i%3 != 0, FinishNS: e.StartNS + 5}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := d.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

// model is the same query answered in Go over the fixture: the test's
// independent statement of what each filter means.
func model(all []Entry, q Query) []Entry {
	var res []Entry
	for i := len(all) - 1; i >= 0; i-- {
		e := all[i]
		if q.Since != 0 && e.StartNS < q.Since || q.Until != 0 && e.StartNS >= q.Until ||
			q.Principal != "" && e.Principal != q.Principal || q.Session != "" && e.Session != q.Session ||
			q.Head != "" && e.Head != q.Head || q.OK != nil && (e.OK != *q.OK || !e.Finished) ||
			q.Principals != nil && !slices.Contains(q.Principals, e.Principal) {
			continue
		}
		ok := true
		for _, k := range q.Effects {
			ok = ok && slices.Contains(e.EffectKinds, k)
		}
		if ok {
			res = append(res, e)
		}
	}
	return res
}

func ids(es []Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestQueryFilters(t *testing.T) {
	d := openTemp(t)
	all := fixture(t, d, 300)
	yes, no := true, false
	cases := []struct {
		name string
		q    Query
	}{
		{"all", Query{}},
		{"since", Query{Since: 2000}},
		{"until", Query{Until: 2000}},
		{"since until", Query{Since: 1500, Until: 2500}},
		{"principal", Query{Principal: "bob"}},
		{"scope", Query{Principals: []string{"alice", "carol"}}},
		{"scope and principal outside it", Query{Principals: []string{"alice"}, Principal: "bob"}},
		{"session", Query{Session: "s3"}},
		{"head", Query{Head: "ls"}},
		{"ok", Query{OK: &yes}},
		{"not ok", Query{OK: &no}},
		{"one effect", Query{Effects: []string{"fs_write"}}},
		{"all-of effects", Query{Effects: []string{"fs_write", "fs_read"}}},
		{"all-of three", Query{Effects: []string{"fs_write", "fs_read", "proc_spawn"}}},
		{"effect nobody has", Query{Effects: []string{"net_connect"}}},
		{"until and effects", Query{Until: 2600, Effects: []string{"fs_delete"}}},
		{"everything", Query{Since: 1100, Until: 3800, Principals: []string{"alice", "bob"}, Session: "s2", OK: &yes, Effects: []string{"fs_read"}}},
	}
	for _, c := range cases {
		want := model(all, c.q)
		for _, limit := range []int{1, 3, 7, 50, 0, MaxQueryLimit} {
			t.Run(fmt.Sprintf("%s/limit=%d", c.name, limit), func(t *testing.T) {
				q := c.q
				q.Limit = limit
				got, next, err := d.Query(q)
				if err != nil {
					t.Fatal(err)
				}
				n := limit
				if n == 0 {
					n = DefaultQueryLimit
				}
				exp := want[:min(n, len(want))]
				if !slices.Equal(ids(got), ids(exp)) {
					t.Fatalf("got %v\nwant %v", ids(got), ids(exp))
				}
				if (next != "") != (len(want) > n) {
					t.Fatalf("next %q with %d matching, limit %d", next, len(want), n)
				}
			})
		}
	}
	// Spot-check that rows carry their fields through Query.
	got, _, _ := d.Query(Query{Limit: 1})
	if got[0].ID != all[len(all)-1].ID || got[0].Src != all[len(all)-1].Src || got[0].Head == "" {
		t.Fatalf("newest %+v", got[0])
	}
	// Empty scope sees nothing.
	if got, _, err := d.Query(Query{Principals: []string{}}); err != nil || len(got) != 0 {
		t.Fatalf("empty scope: %d, %v", len(got), err)
	}
}

func TestQueryPaging(t *testing.T) {
	d := openTemp(t)
	all := fixture(t, d, 257)
	for _, q := range []Query{{}, {Principal: "alice"}, {Effects: []string{"fs_read"}}, {Until: 2500, OK: new(true)}} {
		want := ids(model(all, q))
		for _, page := range []int{1, 10, 64, 1000} {
			q := q
			q.Limit = page
			var got []int64
			for range 1000 {
				es, next, err := d.Query(q)
				if err != nil {
					t.Fatal(err)
				}
				if len(es) > page {
					t.Fatalf("page of %d with limit %d", len(es), page)
				}
				got = append(got, ids(es)...)
				if next == "" {
					break
				}
				q.Cursor = next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("paged (limit %d) %d ids, want %d; gaps or repeats", page, len(got), len(want))
			}
		}
	}
	// Rows added after a page was read do not shift later pages.
	es, next, _ := d.Query(Query{Limit: 5})
	d.Begin(&Entry{Session: "s", Principal: "alice", Src: "new"})
	es2, _, _ := d.Query(Query{Limit: 5, Cursor: next})
	if es2[0].ID != es[4].ID-1 {
		t.Fatalf("page after insert starts at %d, want %d", es2[0].ID, es[4].ID-1)
	}
}

func TestQueryRejects(t *testing.T) {
	d := openTemp(t)
	many := make([]string, MaxScopePrincipals+1)
	kinds := make([]string, MaxEffectFilter+1)
	for i := range kinds {
		kinds[i] = fmt.Sprint("k", i)
	}
	for _, q := range []Query{{Limit: -1}, {Cursor: "nope"}, {Cursor: "j1AAAA"}, {Principals: many}, {Effects: kinds}, {Kind: "other"}} {
		if _, _, err := d.Query(q); !errors.Is(err, ErrBadQuery) {
			t.Errorf("Query(%+v) = %v, want ErrBadQuery", q, err)
		}
	}
	// A limit above the max is clamped, not refused.
	for range MaxQueryLimit + 5 {
		d.Begin(&Entry{Session: "s", Principal: "p"})
	}
	es, next, err := d.Query(Query{Limit: MaxQueryLimit * 10})
	if err != nil || len(es) != MaxQueryLimit || next == "" {
		t.Fatalf("clamped: %d, %q, %v", len(es), next, err)
	}
}

func TestKindsAndParent(t *testing.T) {
	d := openTemp(t)
	x, _ := d.Begin(&Entry{Session: "s", Principal: "p", Src: "a; b"})
	s1, err := d.Begin(&Entry{Kind: KindStmt, Parent: x, Session: "s", Principal: "p", Src: "a"})
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := d.Begin(&Entry{Kind: KindStmt, Parent: x, Session: "s", Principal: "p", Src: "b"})
	if _, err := d.Begin(&Entry{Kind: KindStmt, Parent: 9999, Session: "s", Principal: "p"}); !errors.Is(err, ErrBadEntry) {
		t.Fatalf("missing parent: %v", err)
	}
	if _, err := d.Begin(&Entry{Kind: "job"}); !errors.Is(err, ErrBadEntry) {
		t.Fatalf("bad kind: %v", err)
	}
	execs, _, _ := d.Query(Query{})
	if !slices.Equal(ids(execs), []int64{x}) {
		t.Fatalf("execs %v: statements mixed in", ids(execs))
	}
	stmts, _, _ := d.Query(Query{Kind: KindStmt, Parent: x})
	if !slices.Equal(ids(stmts), []int64{s2, s1}) || stmts[0].Parent != x {
		t.Fatalf("stmts %v", ids(stmts))
	}
	both, _, _ := d.Query(Query{Kind: "*"})
	if len(both) != 3 {
		t.Fatalf("both %v", ids(both))
	}
}

func TestBeginRejects(t *testing.T) {
	d := openTemp(t)
	big := make([]byte, MaxSrcBytes+1)
	for _, e := range []Entry{
		{Src: string(big)},
		{AST: json.RawMessage(`{not json`)},
		{Effects: json.RawMessage(`{"kind":"x"}`)},
		{Outputs: []Output{{Kind: "video", Hash: "h"}}},
		{Outputs: make([]Output, MaxOutputs+1)},
		{Session: string(make([]byte, MaxFieldBytes+1))},
	} {
		if _, err := d.Begin(&e); !errors.Is(err, ErrBadEntry) {
			t.Errorf("Begin accepted a bad entry: %v", err)
		}
	}
	if es, _, _ := d.Query(Query{Kind: "*"}); len(es) != 0 {
		t.Fatalf("rejected entries were written: %d", len(es))
	}
}

func TestHead(t *testing.T) {
	for src, want := range map[string]string{
		"ls -la":          "ls",
		"  \tgit status":  "git",
		"cat x|wc":        "cat",
		"x = 1":           "x",
		"(1 + 2)":         "",
		"":                "",
		"échoé arg":       "échoé",
		"ls;pwd":          "ls",
		"/usr/bin/env -i": "/usr/bin/env",
	} {
		if got := Head(src); got != want {
			t.Errorf("Head(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestQueryPageBytes(t *testing.T) {
	d := openTemp(t)
	ast := json.RawMessage(`"` + strings.Repeat("a", MaxPageBytes/4) + `"`)
	for range 10 {
		if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: "echo", AST: ast}); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	q := Query{Limit: 10}
	pages := 0
	for {
		es, next, err := d.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(es) > 4 {
			t.Fatalf("page of %d entries of %d bytes each", len(es), len(ast))
		}
		got = append(got, ids(es)...)
		if next == "" {
			break
		}
		q.Cursor = next
	}
	if len(got) != 10 || pages < 3 || got[0] != 10 || got[9] != 1 {
		t.Fatalf("%d pages gave %v", pages, got)
	}
}
