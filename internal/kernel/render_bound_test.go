package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// encodedLen is the size of s in a JSON string, as the kernel sends it.
func encodedLen(t *testing.T, s string) int {
	t.Helper()
	b, err := proto.EncodeFrame(s)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) - 3 // quotes and newline
}

// TestRenderEncodedBound checks every render path against its bound as
// encoded: renders, render heads of elided refs, and the render event's
// head, for text that escapes six-fold and text of millions of lines.
func TestRenderEncodedBound(t *testing.T) {
	nul := value.Str(strings.Repeat("\x00", 64<<10))
	vals := map[string]value.Value{
		"nul":          nul,
		"newlines":     value.Str(strings.Repeat("\n", 64<<20)),
		"ctrl":         value.Str(strings.Repeat("\x01\u2028", 32<<10)),
		"nul list":     value.NewList([]value.Value{nul, nul, nul}),
		"nul record":   value.NewRecord([]string{"a", strings.Repeat("\x00", 1<<20)}, []value.Value{nul, nul}),
		"invalid utf8": value.Bytes(strings.Repeat("\xff", 64<<10)),
	}
	for name, v := range vals {
		r := render(v)
		if n := encodedLen(t, r); n > MaxRender {
			t.Errorf("%s: render encodes to %d bytes, bound %d", name, n, MaxRender)
		}
		if h := headLines(r, RenderHeadLines, DefaultMaxBytes); encodedLen(t, h) > DefaultMaxBytes {
			t.Errorf("%s: render event head encodes to %d bytes", name, encodedLen(t, h))
		}
		ref := elidedRef(v, "shoal://out/1", limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems})
		if n := encodedLen(t, ref.RenderHead); n > DefaultMaxBytes/4 {
			t.Errorf("%s: render_head encodes to %d bytes", name, n)
		}
		b, err := elide(v, 1, limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems})
		if err != nil || len(b) > 2*DefaultMaxBytes {
			t.Errorf("%s: elided answer of %d bytes, %v", name, len(b), err)
		}
	}
	if got := render(value.Str(strings.Repeat("\n", 64<<20))); strings.Count(got, "\n") > renderRows+3 {
		t.Errorf("newlines render as %d lines", strings.Count(got, "\n")+1)
	}
}

// TestFitEncoded checks the encoded cut itself.
func TestFitEncoded(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "…"},
		{"abcdef", 5, "ab…"},
		{"\x00\x00", 12, "\x00\x00"},
		{"\x00\x00", 11, "\x00…"},
		{"\x00\x00", 8, "…"},
		{"a\x00b", 8, "a\x00b"},
		{"a\x00b", 7, "a…"},
		{`"""`, 6, `"""`},
		{"é\u2028é", 8, "é…"},
	}
	for _, c := range cases {
		got := fitEncoded(c.in, c.n)
		if got != c.want {
			t.Errorf("fitEncoded(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if encodedLen(t, got) > c.n && got != c.in {
			t.Errorf("fitEncoded(%q, %d) encodes to %d", c.in, c.n, encodedLen(t, got))
		}
	}
}

// TestDeepResultElided checks that exec's encoding of a result a million
// deep is a ref with a render head, not an error, and that a RAISED
// message is cut by its encoded size.
func TestDeepResultElided(t *testing.T) {
	var v value.Value = value.Int(1)
	for i := 0; i < 1_000_000; i++ {
		v = value.NewList([]value.Value{v})
	}
	b, err := elide(v, 3, limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems})
	if err != nil {
		t.Fatalf("elide: %v", err)
	}
	w, err := proto.DecodeWire(b)
	if err != nil {
		t.Fatalf("elided answer is not wire: %v", err)
	}
	if r, ok := w.(*proto.Ref); !ok || !strings.Contains(r.RenderHead, "…") {
		t.Fatalf("deep value elides to %.200s", b)
	}
	if r := render(v); !strings.Contains(r, "…") || len(r) > MaxRender {
		t.Fatalf("render of the deep value: %d bytes", len(r))
	}
	msg := fitEncoded(strings.Repeat("\x00", 1<<20), MaxErrorText)
	if raw, _ := json.Marshal(msg); len(raw) > MaxErrorText+2 {
		t.Fatalf("cut message encodes to %d bytes", len(raw))
	}
}
