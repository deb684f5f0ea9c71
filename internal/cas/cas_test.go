package cas

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "cas"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openFiles is a store that keeps every blob in a file of its own (no
// small-blob pack), for the tests of the file layout.
func openFiles(t *testing.T) *Store {
	t.Helper()
	s := open(t)
	s.inline = -1
	return s
}

func TestPutGetRoundTrip(t *testing.T) {
	s := openFiles(t)
	data := []byte("hello, shoal")
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	// Known BLAKE3-256 of "hello, shoal" computed independently would be
	// brittle to type here; check the shape and that Sum agrees.
	if h != Sum(data) || !strings.HasPrefix(h, "blake3:") || len(h) != len("blake3:")+64 {
		t.Fatalf("hash %q", h)
	}
	if _, err := ParseHash(h); err != nil {
		t.Fatal(err)
	}
	if !s.Has(h) {
		t.Fatal("Has after Put is false")
	}
	got, total, err := s.Get(h, 0, 0)
	if err != nil || !bytes.Equal(got, data) || total != int64(len(data)) {
		t.Fatalf("Get = %q, %d, %v", got, total, err)
	}
	hx := h[len(Prefix):]
	if _, err := os.Stat(filepath.Join(s.Dir(), hx[:2], hx[2:])); err != nil {
		t.Fatalf("fan-out layout: %v", err)
	}
}

func TestKnownVector(t *testing.T) {
	// BLAKE3 of the empty input, from the BLAKE3 specification's test vectors.
	const empty = "blake3:af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
	if got := Sum(nil); got != empty {
		t.Fatalf("Sum(nil) = %s, want %s", got, empty)
	}
}

func TestGetRanges(t *testing.T) {
	s := open(t)
	data := bytes.Repeat([]byte("0123456789"), 20000) // 200,000 bytes: several read chunks
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		off, n  int64
		want    []byte
		wantErr error
	}{
		{"head", 0, 5, data[:5], nil},
		{"middle across chunks", 65530, 20, data[65530:65550], nil},
		{"tail clipped", int64(len(data)) - 3, 100, data[len(data)-3:], nil},
		{"at end", int64(len(data)), 10, []byte{}, nil},
		{"past end", int64(len(data)) + 1, 10, nil, ErrRange},
		{"negative", -1, 10, nil, ErrRange},
		{"whole (n 0)", 0, 0, data, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := s.Get(h, c.off, c.n)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if c.wantErr != nil {
				return
			}
			if total != int64(len(data)) || !bytes.Equal(got, c.want) {
				t.Fatalf("got %d bytes (total %d), want %d", len(got), total, len(c.want))
			}
		})
	}
}

func TestGetBounded(t *testing.T) {
	s := open(t)
	data := bytes.Repeat([]byte{7}, MaxGetBytes+100)
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	got, total, err := s.Get(h, 0, MaxGetBytes*4)
	if err != nil || len(got) != MaxGetBytes || total != int64(len(data)) {
		t.Fatalf("len %d total %d err %v", len(got), total, err)
	}
	if _, err := s.Put(make([]byte, MaxBlobBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized Put: %v", err)
	}
}

func TestErrors(t *testing.T) {
	s := open(t)
	for _, h := range []string{"", "sha256:" + strings.Repeat("0", 64), "blake3:" + strings.Repeat("0", 63),
		"blake3:" + strings.Repeat("A", 64), "blake3:../../" + strings.Repeat("0", 58)} {
		if _, _, err := s.Get(h, 0, 0); !errors.Is(err, ErrBadHash) {
			t.Errorf("Get(%q) = %v, want ErrBadHash", h, err)
		}
		if s.Has(h) {
			t.Errorf("Has(%q) true", h)
		}
	}
	missing := Sum([]byte("never stored"))
	if _, _, err := s.Get(missing, 0, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func blobPath(s *Store, h string) string {
	hx := h[len(Prefix):]
	return filepath.Join(s.Dir(), hx[:2], hx[2:])
}

func TestCorruptNeverServed(t *testing.T) {
	s := open(t)
	data := []byte(strings.Repeat("payload ", 1000))
	h, _ := s.Put(data)
	p := blobPath(s, h)
	bad := bytes.Clone(data)
	bad[len(bad)-1] ^= 1 // flip one bit at the very end: a range at the start must still fail
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, 0}, {0, 4}, {100, 10}} {
		got, _, err := s.Get(h, r[0], r[1])
		if !errors.Is(err, ErrCorrupt) || got != nil {
			t.Fatalf("corrupt Get%v = %d bytes, %v", r, len(got), err)
		}
	}
	// Truncation is corruption too.
	os.WriteFile(p, data[:10], 0o600)
	if _, _, err := s.Get(h, 0, 5); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated: %v", err)
	}
	// A Put of the same content repairs it.
	if _, err := s.Put(data); err != nil {
		t.Fatal(err)
	}
	if got, _, err := s.Get(h, 0, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after repair: %v", err)
	}
}

func TestPutTwiceStoresOnce(t *testing.T) {
	s := openFiles(t)
	data := []byte("same bytes")
	h1, _ := s.Put(data)
	fi1, err := os.Stat(blobPath(s, h1))
	if err != nil {
		t.Fatal(err)
	}
	h2, err := s.Put(data)
	if err != nil || h1 != h2 {
		t.Fatalf("second Put: %s %v", h2, err)
	}
	fi2, _ := os.Stat(blobPath(s, h2))
	if !os.SameFile(fi1, fi2) {
		t.Fatal("second Put replaced the file")
	}
	n := 0
	filepath.WalkDir(s.Dir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != packName { // the pack is empty
			n++
		}
		return nil
	})
	if n != 1 {
		t.Fatalf("%d files after two Puts of one content", n)
	}
}

func age(t *testing.T, s *Store, h string) {
	t.Helper()
	old := time.Now().Add(-2 * SweepGrace)
	if err := os.Chtimes(blobPath(s, h), old, old); err != nil {
		t.Fatal(err)
	}
}

func TestSweepKeepsReferenced(t *testing.T) {
	s := openFiles(t)
	keep, _ := s.Put([]byte("referenced"))
	drop, _ := s.Put([]byte("unreferenced"))
	young, _ := s.Put([]byte("unreferenced but just written"))
	age(t, s, keep)
	age(t, s, drop)
	// A stale temporary from a crashed Put.
	hx := keep[len(Prefix):]
	tmp := filepath.Join(s.Dir(), hx[:2], tmpPrefix+"crashed")
	os.WriteFile(tmp, []byte("partial"), 0o600)
	old := time.Now().Add(-2 * SweepGrace)
	os.Chtimes(tmp, old, old)

	asked := map[string]bool{}
	n, err := s.Sweep(func(h string) bool { asked[h] = true; return h == keep })
	if err != nil || n != 1 {
		t.Fatalf("Sweep removed %d, %v", n, err)
	}
	if !s.Has(keep) || s.Has(drop) || !s.Has(young) {
		t.Fatalf("after sweep: keep %v drop %v young %v", s.Has(keep), s.Has(drop), s.Has(young))
	}
	if !asked[keep] || !asked[drop] {
		t.Fatal("Sweep did not ask about every old blob")
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatal("stale temporary survived")
	}
	// Re-Put of an old blob refreshes it: it survives a sweep even unreferenced.
	age(t, s, keep)
	s.Put([]byte("referenced"))
	if n, _ := s.Sweep(func(string) bool { return false }); n != 0 || !s.Has(keep) {
		t.Fatalf("refreshed blob swept (n=%d)", n)
	}
}

func TestConcurrentPutGetSweep(t *testing.T) {
	s := open(t)
	blobs := [][]byte{[]byte("a"), bytes.Repeat([]byte("b"), 100000), []byte("c")}
	done := make(chan error, 64)
	for g := range 8 {
		go func() {
			for i := range 20 {
				data := blobs[(g+i)%len(blobs)]
				h, err := s.Put(data)
				if err != nil {
					done <- err
					return
				}
				got, _, err := s.Get(h, 0, 0)
				if err != nil || !bytes.Equal(got, data) {
					done <- errors.Join(errors.New("Get after Put"), err)
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for range 10 {
			// Everything is young: the sweep must remove nothing.
			if n, err := s.Sweep(func(string) bool { return false }); err != nil || n != 0 {
				done <- errors.Join(errors.New("sweep removed young blobs"), err)
				return
			}
		}
		done <- nil
	}()
	for range 9 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range blobs {
		if !s.Has(Sum(b)) {
			t.Fatalf("blob %q missing", b[:1])
		}
	}
}

// TestSyncAfterPut: a Put leaves the store dirty until a Sync flushes it,
// a Sync with nothing written does nothing, and a blob reads back whole
// either side of the Sync.
func TestSyncAfterPut(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s.dirty.Load() {
		t.Fatal("a fresh store is dirty")
	}
	h, err := s.Put([]byte("blob to flush"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.dirty.Load() {
		t.Fatal("a Put left the store clean before any Sync")
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if s.dirty.Load() {
		t.Fatal("Sync left the store dirty")
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("a Sync with nothing written: %v", err)
	}
	got, _, err := s.Get(h, 0, 100)
	if err != nil || string(got) != "blob to flush" {
		t.Fatalf("Get after Sync = %q, %v", got, err)
	}
}

// TestPutAfterDirRemoved: Put remembers the subdirectories it made, and
// makes one again when it was removed since; the blob is whole, mode
// 0600, and no temporary file is left behind.
func TestPutAfterDirRemoved(t *testing.T) {
	s := openFiles(t)
	a := []byte("first blob")
	h, err := s.Put(a)
	if err != nil {
		t.Fatal(err)
	}
	hx := h[len(Prefix):]
	sub := filepath.Join(s.Dir(), hx[:fanOut])
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if s.Has(h) {
		t.Fatal("blob still there after its directory was removed")
	}
	if _, err := s.Put(a); err != nil {
		t.Fatalf("Put after the directory was removed: %v", err)
	}
	got, _, err := s.Get(h, 0, 0)
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	fi, err := os.Stat(filepath.Join(sub, hx[fanOut:]))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("blob file %v, %v", fi, err)
	}
	ents, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
}
