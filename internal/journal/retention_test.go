package journal

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The reads the kernel's disk budget makes: where to cut for a number of
// bytes (unfinished rows passed over), which hashes the cut rows name, the
// live pages (which fall after a Prune), and a WAL truncated to nothing.
func TestRetentionReads(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hash := func(c byte) string { return "blake3:" + strings.Repeat(string(c), 64) }
	var ids []int64
	for i, c := range []byte("abcdef") {
		e := &Entry{Session: "s", Principal: "p", Src: "x",
			Outputs: []Output{{Kind: OutStdout, Hash: hash(c), Len: 1000}, {Kind: OutValue, Hash: hash('z'), Len: 10}}}
		var id int64
		if i == 1 { // a running exec: begun, not finished
			id, err = d.Begin(e)
		} else {
			id, err = d.Record(e)
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Each finished row counts its outputs' 1010 bytes and its packed row
	// and outputs columns; three rows' worth takes three finished rows
	// (ids 0, 2, 3): row 1 is passed over.
	var rowBytes int64
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	if err := d.db.QueryRow(`SELECT octet_length(packed) + octet_length(outputs_json) FROM entries WHERE id = ?`, ids[0]).Scan(&rowBytes); err != nil {
		t.Fatal(err)
	}
	want := 3*(rowBytes+1010) - 1
	before, err := d.PruneCutoff(want, 100, 1<<20)
	if err != nil || before != ids[3]+1 {
		t.Fatalf("PruneCutoff(%d) = %d, %v; want %d", want, before, err, ids[3]+1)
	}
	if before, err := d.PruneCutoff(1<<30, 2, 1<<20); err != nil || before != ids[0]+1 {
		t.Fatalf("PruneCutoff over 2 rows = %d, %v; want %d (row 1 is unfinished)", before, err, ids[0]+1)
	}
	// With outputs capped at 100 bytes, that takes every finished row.
	if before, err := d.PruneCutoff(4*(rowBytes+110)+1, 100, 100); err != nil || before != ids[5]+1 {
		t.Fatalf("PruneCutoff(2500) with outputs capped = %d, %v; want %d", before, err, ids[5]+1)
	}
	hs, err := d.HashesBefore(ids[3]+1, 100)
	slices.Sort(hs)
	if want := []string{hash('a'), hash('b'), hash('c'), hash('d'), hash('z')}; err != nil || !slices.Equal(hs, want) {
		t.Fatalf("HashesBefore = %v, %v; want %v", hs, err, want)
	}
	if hs, _ := d.HashesBefore(ids[3]+1, 2); len(hs) != 2 {
		t.Fatalf("HashesBefore with limit 2 = %v", hs)
	}
	// Grow the database so a Prune frees whole pages.
	big := strings.Repeat("s", 64<<10)
	for i := 0; i < 20; i++ {
		if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: big}); err != nil {
			t.Fatal(err)
		}
	}
	live, err := d.LiveBytes()
	if err != nil || live < 20*64<<10 {
		t.Fatalf("LiveBytes = %d, %v; want at least the 1.3 MB of source", live, err)
	}
	if err := d.TruncateWAL(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Path() + "-wal"); err == nil && fi.Size() != 0 {
		t.Fatalf("WAL is %d bytes after TruncateWAL", fi.Size())
	}
	if _, err := d.Prune(1 << 62); err != nil {
		t.Fatal(err)
	}
	after, err := d.LiveBytes()
	if err != nil || after >= live/2 {
		t.Fatalf("LiveBytes after pruning everything finished = %d (was %d), %v", after, live, err)
	}
	if _, err := d.Get(ids[1]); err != nil {
		t.Fatalf("the unfinished row was pruned: %v", err)
	}
}
