package journal

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestQueryPageReleaseReusesBuffers: pages from QueryPage handed back by
// Release are reused, buffers and all (the AST and effects arena, the
// outputs, the statuses, the kinds by mask), by later queries of other
// sizes and filters, whose entries are still each row read the plain way;
// a page still held is never written by them; and a page too large to
// keep is dropped.
func TestQueryPageReleaseReusesBuffers(t *testing.T) {
	d := openTemp(t)
	for i := range 90 {
		st := i - 40
		e := Entry{Session: "s" + strconv.Itoa(i%3), Principal: "agent:p" + strconv.Itoa(i%4), Cwd: "/w",
			Src: "echo " + strconv.Itoa(i), Verdict: "allow"}
		if i%3 != 1 {
			e.AST = json.RawMessage(`{"stmts":[{"k":"cmd","n":` + strconv.Itoa(i) + `}]}`)
		}
		if i%5 != 0 {
			e.Effects = json.RawMessage(`[{"kind":"fs_read","path":"/p` + strconv.Itoa(i) + `"}]`)
		}
		if i%4 != 0 {
			e.Status = &st
		}
		for k := range i % 5 {
			e.Outputs = append(e.Outputs, Output{Kind: OutStdout, Hash: "blake3:" + strconv.Itoa(i) + "-" + strconv.Itoa(k), Len: int64(i*10 + k)})
		}
		if _, err := d.Record(&e); err != nil {
			t.Fatal(err)
		}
	}
	queries := []Query{{Limit: 90}, {Principal: "agent:p1", Limit: 9}, {Session: "s2", Limit: 30},
		{Principals: []string{"agent:p3"}, OwnIDs: true, Limit: 100}, {Effects: []string{"fs_read"}, Limit: 3}}
	check := func(round int, q Query, es []Entry) {
		t.Helper()
		if len(es) == 0 {
			t.Fatalf("round %d, %+v: no rows", round, q)
		}
		for _, got := range es {
			if want := rowByRow(t, d, got.ID); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, %+v, row %d:\n page %+v\n  row %+v", round, q, got.ID, got, want)
			}
		}
	}
	held, _, err := d.QueryPage(Query{Limit: 40})
	if err != nil {
		t.Fatal(err)
	}
	heldJSON, _ := json.Marshal(held.Entries)
	for round := range 4 {
		for _, q := range queries {
			p, _, err := d.QueryPage(q)
			if err != nil {
				t.Fatal(err)
			}
			check(round, q, p.Entries)
			p.Release()
		}
		if b, _ := json.Marshal(held.Entries); string(b) != string(heldJSON) {
			t.Fatalf("round %d: a page still held changed:\n%s\nwas\n%s", round, b, heldJSON)
		}
	}
	check(-1, Query{Limit: 40}, held.Entries)
	held.Release()

	var nilPage *Page
	nilPage.Release()
	(&Page{Entries: make([]Entry, 0, MaxQueryLimit+2)}).Release()                        // too many entries to keep
	(&Page{Entries: make([]Entry, 0, 4), raw: make([]byte, 0, rawChunkMax+1)}).Release() // too large an arena
	for range 20 {
		if p := getPage(4); cap(p.Entries) > MaxQueryLimit+1 || cap(p.raw) > rawChunkMax {
			t.Fatalf("a page past the bounds was kept: %d entries, %d bytes of arena", cap(p.Entries), cap(p.raw))
		}
	}
}
