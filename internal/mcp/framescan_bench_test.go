package mcp

import (
	"strings"
	"testing"
)

// BenchmarkScanFrame is the gate's scan of one tools/call frame, small and
// large: the work every line on the facade's stdin pays before the SDK
// decodes it.
func BenchmarkScanFrame(b *testing.B) {
	for _, c := range []struct {
		name string
		size int
	}{{"200B", 200}, {"1MiB", 1 << 20}} {
		src := strings.Repeat("x", c.size)
		frame := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"` + src + `"}}}`)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if sc := scanFrame(frame, envNames); !sc.valid || sc.members[envMethod] == nil {
					b.Fatal("frame not scanned")
				}
			}
		})
	}
}
