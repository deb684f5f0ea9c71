package auth

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// FuzzDecode: arbitrary bytes never panic the decoder, and whatever decodes
// survives an encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	s := Open(filepath.Join(f.TempDir(), StoreFile))
	if _, _, err := s.Create("agent:a", "p", []string{"fs.read"}, time.Hour); err != nil {
		f.Fatal(err)
	}
	id, _, err := s.Create("agent:b", "q", nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Revoke(id); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(s.Path())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(""))
	f.Add([]byte("{}"))
	f.Add([]byte(`{"version":1,"key":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","tokens":null}`))
	f.Add([]byte(`{"version":1,"tokens":[{"id":"zz"}]}`))
	f.Add(good[:len(good)/3])

	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := decode(data)
		if err != nil {
			return
		}
		out, err := encode(snap)
		if err != nil {
			if snap.key == nil {
				return
			}
			t.Fatalf("encode of a decoded store: %v", err)
		}
		if snap.key == nil {
			return // empty input: nothing to round-trip
		}
		again, err := decode(out)
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if !bytes.Equal(again.key, snap.key) || len(again.entries) != len(snap.entries) {
			t.Fatalf("round trip changed the store")
		}
		for i := range snap.entries {
			a, b := snap.entries[i], again.entries[i]
			if a.tok.ID != b.tok.ID || a.tok.Principal != b.tok.Principal || a.tok.Profile != b.tok.Profile ||
				!slices.Equal(a.tok.Caps, b.tok.Caps) || a.tok.Revoked != b.tok.Revoked ||
				!a.tok.Expires.Equal(b.tok.Expires) || !bytes.Equal(a.digest, b.digest) {
				t.Fatalf("round trip changed token %d: %+v vs %+v", i, a.tok, b.tok)
			}
		}
	})
}
