package lsp

import (
	"testing"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Positions count UTF-16 units: é is one unit and two bytes, 😀 two units
// and four bytes.
func TestPositionsAreUTF16(t *testing.T) {
	d := newDocument("file:///x.shl", 1, "let s = \"é😀x\"\nab")
	cases := []struct {
		line, char uint32
		off        int
	}{
		{0, 0, 0},
		{0, 9, 9},   // é
		{0, 10, 11}, // 😀
		{0, 11, 11}, // inside the surrogate pair: the character's start
		{0, 12, 15}, // x
		{0, 99, 17}, // past the line's end: its end
		{1, 1, 19},
		{7, 0, 20}, // past the last line: the end
	}
	for _, c := range cases {
		if got := d.offset(protocol.Position{Line: c.line, Character: c.char}); got != c.off {
			t.Errorf("offset(%d:%d) = %d, want %d", c.line, c.char, got, c.off)
		}
	}
	for _, c := range []struct {
		off        int
		line, char uint32
	}{{9, 0, 9}, {11, 0, 10}, {15, 0, 12}, {13, 0, 10}, {19, 1, 1}, {99, 1, 2}} {
		if got := d.position(c.off); got.Line != c.line || got.Character != c.char {
			t.Errorf("position(%d) = %d:%d, want %d:%d", c.off, got.Line, got.Character, c.line, c.char)
		}
	}
}

func TestIncrementalEdits(t *testing.T) {
	d := newDocument("file:///x.shl", 1, "let a = \"😀\"\nlet b = a\n")
	edit := func(l1, c1, l2, c2 uint32, text string) {
		t.Helper()
		r := protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
		if err := d.apply(protocol.TextDocumentContentChangeEvent{Range: &r, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	edit(0, 11, 0, 11, "é")   // after the emoji, inside the string
	edit(1, 8, 1, 9, "a.len") // replace the use
	edit(0, 0, 1, 0, "")      // delete the first line whole
	edit(0, 0, 0, 0, "let a = 1\n")
	if want := "let a = 1\nlet b = a.len\n"; d.text != want {
		t.Fatalf("text %q, want %q", d.text, want)
	}
	if len(d.lines) != 3 {
		t.Fatalf("line starts %v", d.lines)
	}
}
