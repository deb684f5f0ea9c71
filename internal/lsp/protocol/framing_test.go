package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestReadMessageFrames(t *testing.T) {
	in := frame(`{"a":1}`) + "Content-Type: x\r\ncontent-length: 2\r\n\r\n{}" + frame(`[]`)
	r := NewReader(strings.NewReader(in))
	for _, want := range []string{`{"a":1}`, `{}`, `[]`} {
		got, err := r.ReadMessage()
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := r.ReadMessage(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

// Each malformed or oversized frame is an error of its own kind, and the
// frame after it is still read.
func TestReadMessageRecovers(t *testing.T) {
	cases := []struct {
		name string
		bad  string
		want error
	}{
		{"too large", fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxFrameBytes+1) + strings.Repeat("x", MaxFrameBytes+1), ErrFrameTooLarge},
		{"no length", "X: 1\r\n\r\n", ErrBadHeader},
		{"bad length", "Content-Length: -3\r\n\r\n", ErrBadHeader},
		{"not a header", "garbage\r\n\r\n", ErrBadHeader},
		{"long header line", "X-Long: " + strings.Repeat("y", 10*headerLineBytes) + "\r\n\r\n", ErrBadHeader},
		{"long header", strings.Repeat("X: y\r\n", 10*MaxHeaderBytes/6) + "\r\n", ErrBadHeader},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(c.bad + frame(`{"ok":true}`)))
			if _, err := r.ReadMessage(); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			got, err := r.ReadMessage()
			if err != nil || string(got) != `{"ok":true}` {
				t.Fatalf("next frame: %q, %v", got, err)
			}
		})
	}
}

func TestReadMessageTruncated(t *testing.T) {
	for _, in := range []string{"Content-Length: 10\r\n\r\n{}", "Content-Length: 10\r\n"} {
		if _, err := NewReader(strings.NewReader(in)).ReadMessage(); !errors.Is(err, ErrStream) {
			t.Errorf("%q: %v, want ErrStream", in, err)
		}
	}
}

func TestCheckDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)
	if err := CheckDepth([]byte(ok)); err != nil {
		t.Fatalf("depth %d: %v", MaxJSONDepth, err)
	}
	deep := strings.Repeat(`{"a":`, MaxJSONDepth+1)
	if err := CheckDepth([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("depth %d: %v", MaxJSONDepth+1, err)
	}
	quoted := `["` + strings.Repeat("[", 10*MaxJSONDepth) + `\"]"]`
	if err := CheckDepth([]byte(quoted)); err != nil {
		t.Fatalf("brackets inside a string: %v", err)
	}
}

func TestWriteMessage(t *testing.T) {
	var b bytes.Buffer
	if err := NewWriter(&b).WriteMessage([]byte(`{"x":"é"}`)); err != nil {
		t.Fatal(err)
	}
	got, err := NewReader(&b).ReadMessage()
	if err != nil || string(got) != `{"x":"é"}` {
		t.Fatalf("round trip: %q, %v", got, err)
	}
}

// FuzzReadMessage: any byte stream gives frames within the bound or a
// typed error, never a panic, and a frame written is read back.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0"}`)))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("content-length:3\n\n{}}"))
	f.Add([]byte("X\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for range 64 {
			body, err := r.ReadMessage()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrStream) && !errors.Is(err, ErrBadHeader) && !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("untyped error %v", err)
				}
				if errors.Is(err, io.EOF) || errors.Is(err, ErrStream) {
					break
				}
				continue
			}
			if len(body) > MaxFrameBytes {
				t.Fatalf("a %d-byte frame past the bound", len(body))
			}
			_ = CheckDepth(body)
		}
		var b bytes.Buffer
		if err := NewWriter(&b).WriteMessage(data); err != nil || len(data) > MaxFrameBytes {
			return
		}
		got, err := NewReader(&b).ReadMessage()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip of %q: %q, %v", data, got, err)
		}
	})
}
