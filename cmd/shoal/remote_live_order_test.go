package main

import (
	"strings"
	"testing"
)

// TestLiveOutputOrder: chunks are printed in output order whatever order
// their events arrive in (each stream is coalesced apart), overlaps and
// repeats print nothing twice, a gap that never fills leaves its bytes to
// the render's rest, a render whose streams are joined in another order
// loses nothing (from the line where it parts from what was printed), and
// past maxLiveHeld the held chunks go out anyway.
func TestLiveOutputOrder(t *testing.T) {
	type chunk struct {
		off  int64
		text string
	}
	cases := []struct {
		name       string
		chunks     []chunk
		printed    string
		restOf     string // the render's output
		wantRest   string
		wantOffset int64
	}{
		{"in order", []chunk{{0, "first\n"}, {6, "second\n"}}, "first\nsecond\n", "first\nsecond\n42", "42", 13},
		{"stdout before stderr", []chunk{{0, "first\n"}, {13, "third\n"}, {6, "second\n"}}, "first\nsecond\nthird\n", "first\nsecond\nthird\n", "", 19},
		{"a repeat and an overlap", []chunk{{0, "abc"}, {0, "abc"}, {1, "bcdef"}}, "abcdef", "abcdefg", "g", 6},
		{"a gap never filled", []chunk{{0, "a"}, {5, "f"}}, "a", "abcdefg", "bcdefg", 1},
		{"the first chunk missing", []chunk{{3, "def"}}, "", "abcdef", "abcdef", 0},
		{"the render in another order", []chunk{{0, "first\n"}, {6, "second\n"}}, "first\nsecond\n", "first\nthird\nsecond\n", "third\nsecond\n", 13},
		{"parting inside a line", []chunk{{0, "ab\ncd"}}, "ab\ncd", "ab\nce\n", "ce\n", 5},
	}
	for _, c := range cases {
		var out strings.Builder
		l := &liveOutput{w: &out}
		for _, ch := range c.chunks {
			l.take(ch.off, []byte(ch.text))
		}
		if out.String() != c.printed || l.printed() != c.wantOffset || l.rest(c.restOf) != c.wantRest {
			t.Errorf("%s: printed %q (end %d), rest %q; want %q (end %d), rest %q",
				c.name, out.String(), l.printed(), l.rest(c.restOf), c.printed, c.wantOffset, c.wantRest)
		}
	}
	var out strings.Builder
	l := &liveOutput{w: &out}
	big := strings.Repeat("x", maxLiveHeld/2+1)
	l.take(10, []byte(big))
	l.take(10+int64(len(big)), []byte(big))
	if out.String() != big+big || l.size != 0 {
		t.Errorf("past maxLiveHeld: printed %d bytes, %d still held", out.Len(), l.size)
	}
}
