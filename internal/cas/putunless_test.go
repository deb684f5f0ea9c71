package cas

import (
	"bytes"
	"errors"
	"testing"
)

// TestPutUnlessAddressIsContentHash: the blob PutUnless stores is at the
// address of its content's hash (Sum, the independent BLAKE3 vector of
// TestKnownVector), in the pack and in a file of its own; the hash known
// is asked about is that same address; a known hash stores nothing.
func TestPutUnlessAddressIsContentHash(t *testing.T) {
	for _, st := range []struct {
		name string
		s    *Store
	}{{"pack", open(t)}, {"files", openFiles(t)}} {
		t.Run(st.name, func(t *testing.T) {
			s := st.s
			data := []byte("the value of ^/bin/true")
			var asked []string
			h, stored, err := s.PutUnless(data, func(h string) bool { asked = append(asked, h); return false })
			if err != nil || !stored {
				t.Fatalf("PutUnless = %q, %v, %v", h, stored, err)
			}
			if h != Sum(data) || len(asked) != 1 || asked[0] != h {
				t.Fatalf("address %q, asked %q, content hash %q", h, asked, Sum(data))
			}
			got, err := s.Load(h, 1<<20)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Load(%q) = %q, %v", h, got, err)
			}

			// Known: nothing is written, the same address is returned.
			other := []byte("never stored")
			h2, stored, err := s.PutUnless(other, func(string) bool { return true })
			if err != nil || stored || h2 != Sum(other) {
				t.Fatalf("known PutUnless = %q, %v, %v; want %q, false", h2, stored, err, Sum(other))
			}
			if s.Has(h2) {
				t.Fatal("a blob PutUnless was told is known was stored")
			}

			// A nil known is Put.
			h3, stored, err := s.PutUnless(other, nil)
			if err != nil || !stored || h3 != Sum(other) || !s.Has(h3) {
				t.Fatalf("PutUnless(nil) = %q, %v, %v", h3, stored, err)
			}
		})
	}
}

// TestPutUnlessTooLarge: the size bound is checked before anything else,
// known included.
func TestPutUnlessTooLarge(t *testing.T) {
	s := open(t)
	called := false
	_, _, err := s.PutUnless(make([]byte, MaxBlobBytes+1), func(string) bool { called = true; return true })
	if !errors.Is(err, ErrTooLarge) || called {
		t.Fatalf("err %v, known called %v", err, called)
	}
}
