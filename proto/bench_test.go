package proto

import (
	"bytes"
	"io"
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
