package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// readAll drains r, returning the frames and the final error.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		f, err := r.ReadFrame()
		if err != nil {
			return out, err
		}
		out = append(out, string(f))
	}
}

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    []string
		wantErr error
	}{
		{"two frames", "{\"a\":1}\n[2]\n", 0, []string{`{"a":1}`, `[2]`}, io.EOF},
		{"final unterminated", "a\nbc", 0, []string{"a", "bc"}, io.EOF},
		{"blank lines skipped", "\n \r\n\ta\n\n", 0, []string{"\ta"}, io.EOF},
		{"crlf kept", "a\r\n", 0, []string{"a\r"}, io.EOF},
		{"empty input", "", 0, nil, io.EOF},
		{"exactly max", "abcd\nef\n", 4, []string{"abcd", "ef"}, io.EOF},
		{"max+1 terminated", "ab\nabcde\nx\n", 4, []string{"ab"}, ErrFrameTooLong},
		{"max+1 unterminated at EOF", "ab\nabcde", 4, []string{"ab"}, ErrFrameTooLong},
		{"max unterminated at EOF", "ab\nabcd", 4, []string{"ab", "abcd"}, io.EOF},
	}
	for _, tt := range tests {
		for _, chunked := range []bool{false, true} {
			var src io.Reader = strings.NewReader(tt.in)
			if chunked {
				src = iotest.OneByteReader(src)
			}
			r := NewReader(src, tt.max)
			got, err := readAll(r)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s (chunked=%v): err = %v, want %v", tt.name, chunked, err, tt.wantErr)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("%s (chunked=%v): frames = %q, want %q", tt.name, chunked, got, tt.want)
			}
			if tt.max > 0 && r.Buffered() > tt.max+1 {
				t.Errorf("%s: buffered %d > %d", tt.name, r.Buffered(), tt.max+1)
			}
		}
	}
}

func TestReadFrameTooLongIsSticky(t *testing.T) {
	r := NewReader(strings.NewReader("0123456789\nok\n"), 5)
	for i := 0; i < 3; i++ {
		if _, err := r.ReadFrame(); !errors.Is(err, ErrFrameTooLong) {
			t.Fatalf("call %d: err = %v, want ErrFrameTooLong", i, err)
		}
	}
}

// endless yields 'x' forever, never a newline.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}

func TestReadFrameBoundsMemoryWhileReading(t *testing.T) {
	src := &endless{}
	const max = 1 << 20
	r := NewReader(src, max)
	if _, err := r.ReadFrame(); !errors.Is(err, ErrFrameTooLong) {
		t.Fatalf("err = %v, want ErrFrameTooLong", err)
	}
	if r.Buffered() > max+1 {
		t.Fatalf("buffered %d bytes, bound is %d", r.Buffered(), max+1)
	}
	if src.n > max+1 {
		t.Fatalf("read %d bytes from the source, bound is %d", src.n, max+1)
	}
}

func TestReadFrameDiscardsPartialOnReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom)), 0)
	got, err := readAll(r)
	if !errors.Is(err, boom) || len(got) != 1 || got[0] != "a" {
		t.Fatalf("got %q, %v; want [a], boom", got, err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReadFrameNoProgress(t *testing.T) {
	if _, err := NewReader(zeroReader{}, 0).ReadFrame(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestReadFrameDefaultBound(t *testing.T) {
	if r := NewReader(strings.NewReader(""), 0); r.max != MaxFrame {
		t.Fatalf("default max = %d, want %d", r.max, MaxFrame)
	}
}

// countingWriter records each Write call.
type countingWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func TestWriterWholeFramesConcurrently(t *testing.T) {
	cw := &countingWriter{}
	w := NewWriter(cw)
	var wg sync.WaitGroup
	const n = 50
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			payload := map[string]any{"i": i, "s": strings.Repeat("<&>", i*100)}
			if err := w.WriteFrame(NewResponse(json.RawMessage(`7`), payload)); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if len(cw.writes) != n {
		t.Fatalf("%d writes, want %d (one per frame)", len(cw.writes), n)
	}
	for _, f := range cw.writes {
		if f[len(f)-1] != '\n' || bytes.Count(f, []byte("\n")) != 1 {
			t.Fatalf("frame is not one line: %q", f)
		}
		if !json.Valid(f) {
			t.Fatalf("frame is not JSON: %q", f)
		}
		if bytes.Contains(f, []byte(`\u003c`)) {
			t.Fatalf("HTML was escaped: %.80q", f)
		}
	}
}

func TestEncodeFrame(t *testing.T) {
	f, err := EncodeFrame(map[string]any{"a": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if string(f) != "{\"a\":[1,2]}\n" {
		t.Fatalf("frame = %q", f)
	}
	if _, err := EncodeFrame(strings.Repeat("x", MaxFrame)); !errors.Is(err, ErrFrameTooLong) {
		t.Fatalf("oversized encode: err = %v, want ErrFrameTooLong", err)
	}
	if _, err := EncodeFrame(func() {}); err == nil {
		t.Fatal("encoding a func succeeded")
	}
}

func TestWriteRawRejectsBadFrames(t *testing.T) {
	w := NewWriter(io.Discard)
	for _, f := range []string{"", "\n", "{}", "{}\n{}\n"} {
		if err := w.WriteRaw([]byte(f)); !errors.Is(err, ErrBadFrame) {
			t.Errorf("WriteRaw(%q) = %v, want ErrBadFrame", f, err)
		}
	}
	if err := w.WriteRaw([]byte("{}\n")); err != nil {
		t.Errorf("WriteRaw good frame: %v", err)
	}
}
