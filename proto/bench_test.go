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

// BenchmarkExecParams decodes the exec params an MCP call sends (src with
// position and timeout_ms, so the kernel's one-member fast path does not
// apply) into ExecParams, as the kernel does (UnmarshalJSON called
// directly), beside the floor: the struct of pointers the kernel decoded
// into before the type was declared here, through json.Unmarshal.
func BenchmarkExecParams(b *testing.B) {
	params := []byte(`{"src":"(ls .).where(.type == 'file') | first 3","position":"value","timeout_ms":2000,"elide":{"max_rows":20}}`)
	b.Run("proto", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var p ExecParams
			if err := p.UnmarshalJSON(params); err != nil || !p.HasSrc() {
				b.Fatal(err)
			}
		}
	})
	b.Run("pointers", func(b *testing.B) {
		type elide struct {
			MaxBytes *int `json:"max_bytes"`
			MaxRows  *int `json:"max_rows"`
			MaxItems *int `json:"max_items"`
		}
		type execParams struct {
			Src        *string  `json:"src"`
			Mode       string   `json:"mode"`
			Position   string   `json:"position"`
			Async      bool     `json:"async"`
			Background bool     `json:"background"`
			TimeoutMS  *int64   `json:"timeout_ms"`
			Elide      *elide   `json:"elide"`
			PlanRef    *string  `json:"plan_ref"`
			Display    *Display `json:"display"`
		}
		b.ReportAllocs()
		for range b.N {
			var p execParams
			if err := json.Unmarshal(params, &p); err != nil || p.Src == nil {
				b.Fatal(err)
			}
		}
	})
}
