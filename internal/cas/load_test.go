package cas

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

func TestLoadWholeBlob(t *testing.T) {
	s := open(t)
	data := bytes.Repeat([]byte("shoal "), (MaxGetBytes/6)+100) // past one Get
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(h, int64(len(data)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Load = %d bytes, %v; want %d", len(got), err, len(data))
	}
	if _, err := s.Load(h, int64(len(data))-1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Load under the blob's length: %v, want ErrTooLarge", err)
	}
	if _, err := s.Load(Sum([]byte("absent")), 1<<20); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of an absent blob: %v, want ErrNotFound", err)
	}
	if _, err := s.Load("blake3:XYZ", 1<<20); !errors.Is(err, ErrBadHash) {
		t.Fatalf("Load of a malformed hash: %v, want ErrBadHash", err)
	}
	hx, _ := ParseHash(h)
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 1
	if err := os.WriteFile(s.path(hx), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(h, int64(len(data))); !errors.Is(err, ErrCorrupt) || got != nil {
		t.Fatalf("Load of a corrupted blob: %d bytes, %v; want ErrCorrupt and nothing", len(got), err)
	}
}

func TestUsageCountsBlobs(t *testing.T) {
	s := openFiles(t)
	if n, b, err := s.Usage(); err != nil || n != 0 || b != 0 {
		t.Fatalf("empty store: %d files, %d bytes, %v", n, b, err)
	}
	for _, d := range []string{"a", "bb", "ccc", "bb"} {
		if _, err := s.Put([]byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	if n, b, err := s.Usage(); err != nil || n != 3 || b != 6 {
		t.Fatalf("three blobs of 6 bytes: got %d files, %d bytes, %v", n, b, err)
	}
}

func TestRemoveUnless(t *testing.T) {
	s := openFiles(t)
	var hs []string
	for _, d := range []string{"keep", "drop", "also drop"} {
		h, err := s.Put([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	absent := Sum([]byte("never stored"))
	removed, n, err := s.RemoveUnless(append(hs, absent, "blake3:bad"), func(h string) bool { return h == hs[0] })
	if err != nil || len(removed) != 2 || n != int64(len("drop")+len("also drop")) {
		t.Fatalf("removed %v (%d bytes), %v", removed, n, err)
	}
	if !s.Has(hs[0]) || s.Has(hs[1]) || s.Has(hs[2]) {
		t.Fatalf("after RemoveUnless: has %v %v %v; want only the kept one", s.Has(hs[0]), s.Has(hs[1]), s.Has(hs[2]))
	}
}
