package journal

import (
	"fmt"
	"testing"
)

// AppliedBytes reads the figures the three PRAGMAs give, as rows are
// added and pruned (pages go to the free list), through its one prepared
// statement.
func TestAppliedBytesAsPragmas(t *testing.T) {
	d := openTemp(t)
	pragmas := func() int64 {
		t.Helper()
		var pages, free, size int64
		for _, q := range []struct {
			pragma string
			dst    *int64
		}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
			if err := d.db.QueryRow(`PRAGMA ` + q.pragma).Scan(q.dst); err != nil {
				t.Fatal(err)
			}
		}
		return (pages - free) * size
	}
	check := func(when string) {
		t.Helper()
		if err := d.sync(); err != nil {
			t.Fatal(err)
		}
		got, err := d.AppliedBytes()
		if err != nil {
			t.Fatal(err)
		}
		if want := pragmas(); got != want || got <= 0 {
			t.Fatalf("%s: AppliedBytes = %d, the PRAGMAs give %d", when, got, want)
		}
	}
	check("empty")
	var last int64
	for i := range 2000 {
		id, err := d.Record(&Entry{Session: fmt.Sprintf("s%d", i%7), Principal: "p", Src: fmt.Sprintf("%d + 1 # %0200d", i, i), OK: true})
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	check("after 2,000 rows")
	if _, err := d.Prune(last - 100); err != nil {
		t.Fatal(err)
	}
	var free int64
	if err := d.db.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if free == 0 {
		t.Fatal("the prune freed no page: the test checks nothing about the free list")
	}
	check("after pruning")
	d.rmu.Lock()
	_, cached := d.reads[sqlAppliedPages]
	d.rmu.Unlock()
	if !cached {
		t.Fatal("AppliedBytes' statement is not kept prepared")
	}
}

// BenchmarkAppliedBytes: AppliedBytes (one prepared statement) beside the
// three PRAGMA statements it replaced, on a journal of 10,000 rows.
func BenchmarkAppliedBytes(b *testing.B) {
	d := openTemp(b)
	for i := range 10000 {
		if _, err := d.Record(&Entry{Session: fmt.Sprintf("s%d", i%32), Principal: "p", Src: "1 + 1", OK: true}); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.sync(); err != nil {
		b.Fatal(err)
	}
	b.Run("one-statement", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.AppliedBytes(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("three-pragmas", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var pages, free, size int64
			for _, q := range []struct {
				pragma string
				dst    *int64
			}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
				if err := d.db.QueryRow(`PRAGMA ` + q.pragma).Scan(q.dst); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
