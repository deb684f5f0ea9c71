package trust

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/reef"
)

// FuzzDecode: any bytes decode to entries or an error, never a panic;
// what decodes is within the bounds and encodes back to a document that
// decodes to the same entries.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"dirs":[]}`))
	f.Add([]byte(`{"version":1,"dirs":[{"dir":"/p","digest":"` + reef.EmptyDigest + `","files":[],"trusted_at":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"dirs":[{"dir":"/p","digest":"x","files":[{"name":".reef.toml","blake3":"y"}],"trusted_at":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := Decode(data)
		if err != nil {
			return
		}
		if len(es) > MaxEntries {
			t.Fatalf("%d entries decoded", len(es))
		}
		out, err := Encode(es)
		if err != nil {
			t.Fatalf("encode of decoded entries: %v", err)
		}
		back, err := Decode(out)
		if err != nil || len(back) != len(es) {
			t.Fatalf("round trip: %v (%d vs %d)", err, len(back), len(es))
		}
		seen := map[string]bool{}
		for _, e := range back {
			if CheckDir(e.Dir) != nil || seen[e.Dir] || strings.ContainsRune(e.Dir, 0) {
				t.Fatalf("bad dir %q", e.Dir)
			}
			seen[e.Dir] = true
		}
	})
}
