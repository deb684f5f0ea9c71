package namespaces

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestTOMLLongPathsCostTheirBytesOnce: a header of 100,000 bytes over
// 5,000 keys (and a dotted key of 500 parts of 2,000 bytes) decodes
// allocating a small multiple of the document. Key paths were once spelt
// out whole for every key beneath them: about 1 GiB for the first
// document's 149 kB, 0.5 GiB for the second's 1 MB.
func TestTOMLLongPathsCostTheirBytesOnce(t *testing.T) {
	var header strings.Builder
	header.WriteString("[" + strings.Repeat("x", 100_000) + "]\n")
	for i := range 5000 {
		fmt.Fprintf(&header, "k%d = 1\n", i)
	}
	parts := make([]string, 500)
	for i := range parts {
		parts[i] = fmt.Sprintf("k%d%s", i, strings.Repeat("x", 2000))
	}
	for name, doc := range map[string]string{"long header": header.String(), "long dotted key": strings.Join(parts, ".") + " = 1\n"} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := call(t, "toml", "parse", pos(s(doc))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		if got, most := after.TotalAlloc-before.TotalAlloc, uint64(64*len(doc)); got > most {
			t.Errorf("%s: toml.parse of %d bytes allocated %d bytes, more than %d", name, len(doc), got, most)
		}
	}
}
