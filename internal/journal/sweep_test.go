package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/cas"
)

// ageBlob backdates a blob file past the sweep grace.
func ageBlob(t *testing.T, s *cas.Store, h string) {
	t.Helper()
	hx := h[len(cas.Prefix):]
	old := time.Now().Add(-2 * cas.SweepGrace)
	if err := os.Chtimes(filepath.Join(s.Dir(), hx[:2], hx[2:]), old, old); err != nil {
		t.Fatal(err)
	}
}

// TestSweepSparesReferencedBlobs runs the CAS sweep with the journal as its
// judge: a blob any row names (finished, unfinished or interrupted) stays;
// one no row names goes; and a journal that cannot answer keeps everything.
func TestSweepSparesReferencedBlobs(t *testing.T) {
	dir := t.TempDir()
	s, err := cas.Open(filepath.Join(dir, "cas"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(filepath.Join(dir, "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(b string) string {
		// Past the small-blob bound, so that each is a file ageBlob can age.
		h, err := s.Put([]byte(b + strings.Repeat(".", cas.SmallBlobBytes)))
		if err != nil {
			t.Fatal(err)
		}
		ageBlob(t, s, h)
		return h
	}
	finished, begun, orphan, replaced := put("finished"), put("begun"), put("orphan"), put("replaced")
	id, _ := d.Begin(&Entry{Session: "s", Principal: "alice", Outputs: []Output{{Kind: OutValue, Hash: replaced, Len: 8}}})
	if err := d.Finish(id, &Entry{OK: true, Outputs: []Output{{Kind: OutStdout, Hash: finished, Len: 8}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Begin(&Entry{Session: "s", Principal: "bob", Outputs: []Output{{Kind: OutValue, Hash: begun, Len: 5}}}); err != nil {
		t.Fatal(err)
	}
	// Reopen: bob's row is now interrupted, and still references its blob.
	d.Close()
	if d, err = Open(filepath.Join(dir, "journal.db")); err != nil {
		t.Fatal(err)
	}
	n, err := s.Sweep(d.Referenced)
	if err != nil || n != 2 {
		t.Fatalf("Sweep removed %d, %v; want the orphan and the replaced output", n, err)
	}
	for h, want := range map[string]bool{finished: true, begun: true, orphan: false, replaced: false} {
		if s.Has(h) != want {
			t.Errorf("after sweep Has(%s) = %v, want %v", h, !want, want)
		}
	}
	// A journal that errors answers "referenced": nothing is removed.
	again := put("unreferenced, but the journal is closed")
	d.Close()
	if n, err := s.Sweep(d.Referenced); err != nil || n != 0 || !s.Has(again) {
		t.Fatalf("sweep with a closed journal removed %d (%v)", n, err)
	}
}
