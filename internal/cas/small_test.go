package cas

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/blake3"
)

func reopen(t *testing.T, s *Store) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

// packSize is where the pack's records end: the file's length, less the
// zeros a mapped pack's file is allocated ahead of them (small.go), which
// it checks are zeros.
func packSize(t *testing.T, s *Store) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir(), packName))
	if err != nil {
		t.Fatal(err)
	}
	_, n := s.small.usage()
	if int64(len(b)) < n || bytes.IndexFunc(b[n:], func(r rune) bool { return r != 0 }) >= 0 {
		t.Fatalf("the pack's file is %d bytes for records ending at %d, not zeros past them", len(b), n)
	}
	return n
}

// A blob of at most SmallBlobBytes goes to the pack, not a file, and reads
// back whole, in ranges and through Load, before and after the store is
// opened again; one byte more is a file.
func TestSmallBlobInPack(t *testing.T) {
	s := open(t)
	small := bytes.Repeat([]byte("s"), SmallBlobBytes)
	large := bytes.Repeat([]byte("L"), SmallBlobBytes+1)
	hs, err := s.Put(small)
	if err != nil {
		t.Fatal(err)
	}
	hl, err := s.Put(large)
	if err != nil {
		t.Fatal(err)
	}
	he, err := s.Put(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath(s, hs)); !os.IsNotExist(err) {
		t.Errorf("a %d-byte blob has a file: %v", SmallBlobBytes, err)
	}
	if _, err := os.Stat(blobPath(s, hl)); err != nil {
		t.Errorf("a %d-byte blob has no file: %v", SmallBlobBytes+1, err)
	}
	for round := range 2 {
		for _, c := range []struct {
			h    string
			data []byte
		}{{hs, small}, {hl, large}, {he, nil}} {
			if !s.Has(c.h) {
				t.Errorf("round %d: Has(%d bytes) = false", round, len(c.data))
			}
			got, total, err := s.Get(c.h, 0, 0)
			if err != nil || !bytes.Equal(got, c.data) || total != int64(len(c.data)) {
				t.Errorf("round %d: Get(%d bytes) = %d bytes, %d, %v", round, len(c.data), len(got), total, err)
			}
			got, err = s.Load(c.h, MaxBlobBytes)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Errorf("round %d: Load(%d bytes) = %d bytes, %v", round, len(c.data), len(got), err)
			}
		}
		if got, total, err := s.Get(hs, 10, 5); err != nil || string(got) != "sssss" || total != SmallBlobBytes {
			t.Errorf("round %d: ranged Get = %q, %d, %v", round, got, total, err)
		}
		if got, _, err := s.Get(hs, SmallBlobBytes, 5); err != nil || len(got) != 0 {
			t.Errorf("round %d: Get at the end = %q, %v", round, got, err)
		}
		if _, _, err := s.Get(hs, SmallBlobBytes+1, 5); !errors.Is(err, ErrRange) {
			t.Errorf("round %d: Get past the end: %v", round, err)
		}
		if _, err := s.Load(hs, 10); !errors.Is(err, ErrTooLarge) {
			t.Errorf("round %d: Load over max: %v", round, err)
		}
		if s.Has(Sum([]byte("never stored"))) {
			t.Errorf("round %d: Has of a blob never stored", round)
		}
		if _, _, err := s.Get(Sum([]byte("never stored")), 0, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("round %d: Get of a blob never stored: %v", round, err)
		}
		s = reopen(t, s)
	}
	// A second Put of the same content appends nothing.
	size := packSize(t, s)
	if _, err := s.Put(small); err != nil {
		t.Fatal(err)
	}
	if got := packSize(t, s); got != size {
		t.Errorf("re-Put grew the pack from %d to %d bytes", size, got)
	}
}

// A record whose bytes no longer match its hash is never served, in whole
// or in part; a Put of the same content stores a good copy.
func TestSmallBlobCorruptNeverServed(t *testing.T) {
	s := open(t)
	data := []byte("a small blob to corrupt")
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	other := []byte("its neighbour")
	ho, err := s.Put(other)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir(), packName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[packHeader+len(data)-1] ^= 1 // the first record's last byte
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, 0}, {0, 4}} {
		if got, _, err := s.Get(h, r[0], r[1]); !errors.Is(err, ErrCorrupt) || got != nil {
			t.Errorf("corrupt Get%v = %q, %v", r, got, err)
		}
	}
	if _, err := s.Load(h, MaxBlobBytes); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt Load: %v", err)
	}
	if got, _, err := s.Get(ho, 0, 0); err != nil || !bytes.Equal(got, other) {
		t.Errorf("the neighbour: %q, %v", got, err)
	}
	if _, err := s.Put(data); err != nil {
		t.Fatal(err)
	}
	if got, _, err := s.Get(h, 0, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("after repair: %q, %v", got, err)
	}
	// Opened again, the corrupt record is skipped: the neighbour after it
	// and the repaired copy read back.
	s = reopen(t, s)
	for hh, want := range map[string][]byte{h: data, ho: other} {
		if got, _, err := s.Get(hh, 0, 0); err != nil || !bytes.Equal(got, want) {
			t.Errorf("after reopening, %s: %q, %v", hh, got, err)
		}
	}
	// A changed length field: what follows no longer parses, and reads
	// as not found (never as other bytes); a Put after it reads back
	// after another open.
	s.Close()
	b, err = os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[0] = 7 // the first record claims 7 bytes
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	for _, hh := range []string{h, ho} {
		if got, _, err := s.Get(hh, 0, 0); err != nil && !errors.Is(err, ErrNotFound) || err == nil && !bytes.Equal(got, map[string][]byte{h: data, ho: other}[hh]) {
			t.Errorf("after a changed length, %s: %q, %v", hh, got, err)
		}
	}
	h2, err := s.Put([]byte("after the damage"))
	if err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	if got, _, err := s.Get(h2, 0, 0); err != nil || string(got) != "after the damage" {
		t.Errorf("a blob Put after the damage: %q, %v", got, err)
	}
}

// A torn record at the end (a power loss before Sync) is cut off at open;
// the records before it read, and the next Put is readable after another
// open.
func TestSmallBlobTornTail(t *testing.T) {
	s := open(t)
	var hs []string
	for i := range 3 {
		h, err := s.Put(fmt.Appendf(nil, "blob %d", i))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	p := filepath.Join(s.Dir(), packName)
	size := packSize(t, s)
	for _, cut := range []int64{3, packHeader + 2} { // in the header, in the data
		if err := os.Truncate(p, size-cut); err != nil {
			t.Fatal(err)
		}
		s2 := reopen(t, s)
		for i, h := range hs[:2] {
			if got, _, err := s2.Get(h, 0, 0); err != nil || string(got) != fmt.Sprintf("blob %d", i) {
				t.Errorf("cut %d: blob %d = %q, %v", cut, i, got, err)
			}
		}
		if s2.Has(hs[2]) {
			t.Errorf("cut %d: the torn blob is indexed", cut)
		}
		s = s2
		if err := os.Truncate(p, size); err != nil { // restore for the next cut
			t.Fatal(err)
		}
		s = reopen(t, s)
	}
	if err := os.Truncate(p, size-3); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	h, err := s.Put([]byte("appended after a torn tail"))
	if err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	if got, _, err := s.Get(h, 0, 0); err != nil || string(got) != "appended after a torn tail" {
		t.Errorf("after a torn tail: %q, %v", got, err)
	}
}

// Sweep removes old unreferenced small blobs and keeps referenced and
// young ones; a blob's Put time is in its record, so it outlives a
// reopen; re-Put refreshes it.
func TestSmallBlobSweep(t *testing.T) {
	s := open(t)
	t0 := time.Now().UnixNano()
	keep, _ := s.Put([]byte("referenced"))
	drop, _ := s.Put([]byte("unreferenced"))
	t1 := time.Now().UnixNano()
	s = reopen(t, s)
	for _, h := range []string{keep, drop} {
		if at := s.small.index[sumOf(h[len(Prefix):])].at; at < t0 || at > t1 {
			t.Fatalf("Put time after reopening %d, not in [%d, %d]", at, t0, t1)
		}
	}
	young, _ := s.Put([]byte("unreferenced but just written"))
	refreshed, _ := s.Put([]byte("unreferenced, old, Put again"))
	ageSmall := func(h string) {
		sum := sumOf(h[len(Prefix):])
		loc := s.small.index[sum]
		loc.at = time.Now().Add(-2 * SweepGrace).UnixNano()
		s.small.index[sum] = loc
	}
	for _, h := range []string{keep, drop, refreshed} {
		ageSmall(h)
	}
	s.Put([]byte("unreferenced, old, Put again"))
	n, err := s.Sweep(func(h string) bool { return h == keep })
	if err != nil || n != 1 {
		t.Fatalf("Sweep removed %d, %v", n, err)
	}
	if !s.Has(keep) || s.Has(drop) || !s.Has(young) || !s.Has(refreshed) {
		t.Fatalf("after Sweep: keep %v drop %v young %v refreshed %v", s.Has(keep), s.Has(drop), s.Has(young), s.Has(refreshed))
	}
	s = reopen(t, s)
	if !s.Has(keep) || s.Has(drop) || !s.Has(young) || !s.Has(refreshed) {
		t.Fatalf("after reopening: keep %v drop %v young %v refreshed %v", s.Has(keep), s.Has(drop), s.Has(young), s.Has(refreshed))
	}
}

// RemoveUnless drops the small blobs named and not kept, and once half the
// pack is dead compacts it: the file shrinks and every live blob still
// reads, before and after a reopen.
func TestSmallBlobRemoveAndCompact(t *testing.T) {
	s := open(t)
	var keep, drop []string
	for i := range 100 {
		h, err := s.Put(fmt.Appendf(nil, "blob number %03d %s", i, strings.Repeat("x", i)))
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			keep = append(keep, h)
		} else {
			drop = append(drop, h)
		}
	}
	before := packSize(t, s)
	kept := map[string]bool{}
	for _, h := range keep {
		kept[h] = true
	}
	removed, freed, err := s.RemoveUnless(append(append([]string{}, keep...), drop...), func(h string) bool { return kept[h] })
	if err != nil || len(removed) != len(drop) || freed <= 0 {
		t.Fatalf("RemoveUnless: %d removed, %d bytes, %v", len(removed), freed, err)
	}
	after := packSize(t, s)
	if after >= before || after != before-freed {
		t.Errorf("pack %d bytes before, %d after freeing %d: not compacted", before, after, freed)
	}
	files, bytesUsed, err := s.Usage()
	if err != nil || files != int64(len(keep)) || bytesUsed != after {
		t.Errorf("Usage = %d blobs, %d bytes, %v; want %d, %d", files, bytesUsed, err, len(keep), after)
	}
	for round := range 2 {
		for _, h := range keep {
			if _, _, err := s.Get(h, 0, 0); err != nil {
				t.Errorf("round %d: kept %s: %v", round, h, err)
			}
		}
		for _, h := range drop {
			if s.Has(h) {
				t.Errorf("round %d: removed %s still there", round, h)
			}
		}
		s = reopen(t, s)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), packTmpName)); !os.IsNotExist(err) {
		t.Errorf("the compaction's temporary file is left: %v", err)
	}
}

// Past MaxSmallBlobs indexed blobs, a small blob is stored as a file.
func TestSmallBlobBound(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the pack")
	}
	s := open(t)
	for i := range MaxSmallBlobs {
		if _, err := s.Put(fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.Put([]byte("one more"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath(s, h)); err != nil {
		t.Fatalf("the blob past the bound is not a file: %v", err)
	}
	if n, _ := s.small.usage(); n != MaxSmallBlobs {
		t.Fatalf("the pack indexes %d blobs", n)
	}
	s = reopen(t, s)
	if got, _, err := s.Get(h, 0, 0); err != nil || string(got) != "one more" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if got, _, err := s.Get(Sum([]byte("0")), 0, 0); err != nil || string(got) != "0" {
		t.Fatalf("Get of the first = %q, %v", got, err)
	}
	// A removal makes room; what is Put after it, behind the full
	// pack's records and the tombstone, is read again at the next open.
	if removed, _, err := s.RemoveUnless([]string{Sum([]byte("0"))}, func(string) bool { return false }); err != nil || len(removed) != 1 {
		t.Fatalf("RemoveUnless: %v, %v", removed, err)
	}
	h2, err := s.Put([]byte("in the room made"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath(s, h2)); !os.IsNotExist(err) {
		t.Fatalf("the blob put after a removal is a file: %v", err)
	}
	s = reopen(t, s)
	if got, _, err := s.Get(h2, 0, 0); err != nil || string(got) != "in the room made" {
		t.Fatalf("after reopening, the blob put after a removal: %q, %v", got, err)
	}
	if s.Has(Sum([]byte("0"))) {
		t.Fatal("the removed blob is back after reopening")
	}
}

// Puts, Gets, RemoveUnless and Sweep of small blobs at once: every Get
// returns its own bytes or not found, never other bytes (run with -race).
func TestSmallBlobConcurrent(t *testing.T) {
	s := open(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				data := fmt.Appendf(nil, "worker %d blob %d", w, i)
				h, err := s.Put(data)
				if err != nil {
					t.Error(err)
					return
				}
				got, _, err := s.Get(h, 0, 0)
				if err != nil && !errors.Is(err, ErrNotFound) || err == nil && !bytes.Equal(got, data) {
					t.Errorf("Get = %q, %v; want %q", got, err, data)
					return
				}
				if i%10 == 0 {
					if _, _, err := s.RemoveUnless([]string{h}, func(string) bool { return false }); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			if _, err := s.sweep(func(string) bool { return true }, time.Now()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
}

// FuzzOpenPack: whatever bytes the pack file holds, Open neither panics
// nor fails, every blob it indexes reads back verified, a Put after it
// reads back, and so does everything after another Open.
func FuzzOpenPack(f *testing.F) {
	good := record(blake3Sum([]byte("seed")), []byte("seed"), 1)
	f.Add(good)
	f.Add(append(append([]byte{}, good...), good[:10]...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add(bytes.Repeat([]byte{0}, packHeader))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, packName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer s.Close()
		for sum := range s.small.index {
			data, err := s.Load(name(sum), MaxBlobBytes)
			if err != nil || blake3Sum(data) != sum {
				t.Fatalf("indexed blob %x: %v", sum, err)
			}
		}
		h, err := s.Put([]byte("after"))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(dir)
		if err != nil {
			t.Fatalf("second Open: %v", err)
		}
		defer s2.Close()
		if got, _, err := s2.Get(h, 0, 0); err != nil || string(got) != "after" {
			t.Fatalf("Put after a fuzzed pack: %q, %v", got, err)
		}
	})
}

func blake3Sum(b []byte) [32]byte { return blake3.Sum256(b) }

// OpenWith's bounds narrow what Put appends; reopening with a smaller
// bound than the pack was filled under still serves every blob in it.
func TestSmallBlobOptionsBound(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenWith(dir, Options{SmallBlobs: 8})
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for i := range 80 { // ten times the bound
		h, err := s.Put(fmt.Appendf(nil, "blob %d", i))
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	if n, _ := s.small.usage(); n != 8 {
		t.Fatalf("the pack indexes %d blobs, want the bound 8", n)
	}
	for i, h := range hashes[8:] {
		if _, err := os.Stat(blobPath(s, h)); err != nil {
			t.Fatalf("blob %d past the bound is not a file: %v", i+8, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = OpenWith(dir, Options{SmallBlobs: 2, PackBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, h := range hashes {
		if got, _, err := s.Get(h, 0, 0); err != nil || string(got) != fmt.Sprintf("blob %d", i) {
			t.Fatalf("blob %d after reopening with a smaller bound: %q, %v", i, got, err)
		}
	}
	// The byte bound: nothing more fits in a 64-byte pack.
	h, err := s.Put([]byte("another"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath(s, h)); err != nil {
		t.Fatalf("a blob past the byte bound is not a file: %v", err)
	}
}
