package proto

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loopReader replays data forever.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.data[l.off:])
		n += c
		l.off = (l.off + c) % len(l.data)
	}
	return n, nil
}

func BenchmarkReadFrame(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":17,"method":"exec","params":{"src":"ls | where size > 1kb"}}` + "\n")
	r := NewReader(&loopReader{data: bytes.Repeat(frame, 64)}, 0)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRequest(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":17,"method":"exec","params":{"src":"ls | where size > 1kb"}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeRequest(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteFrame(b *testing.B) {
	w := NewWriter(io.Discard)
	resp := NewResponse([]byte("17"), map[string]any{"ref": "out:3", "render": "42"})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := w.WriteFrame(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// parseRequest10KB is the parse RPC benchmark's request: the 10 kB script
// (internal/syntax's benchmark chunk, repeated) encoded by encoding/json.
func parseRequest10KB(b *testing.B) []byte {
	b.Helper()
	chunk, err := os.ReadFile(filepath.Join("..", "internal", "syntax", "testdata", "bench", "chunk.shl"))
	if err != nil {
		b.Fatal(err)
	}
	var src strings.Builder
	for src.Len() < 10*1024 {
		src.Write(chunk)
	}
	params, err := json.Marshal(map[string]string{"src": src.String()})
	if err != nil {
		b.Fatal(err)
	}
	return []byte(`{"jsonrpc":"2.0","id":17,"method":"parse","params":` + string(params) + `}`)
}

// BenchmarkParseRequest10KB is the kernel's reading of a parse request:
// the frame decoded, then its source read from the params.
func BenchmarkParseRequest10KB(b *testing.B) {
	frame := parseRequest10KB(b)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := DecodeRequest(frame); err != nil {
				b.Fatal(err)
			}
		}
	})
	req, _ := DecodeRequest(frame)
	b.Run("src", func(b *testing.B) {
		for b.Loop() {
			if _, ok := StringParam(req.Params, "src"); !ok {
				b.Fatal("no src")
			}
		}
	})
}
