package value

import (
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDisplayBoundedWork checks that a bounded display of a big value
// allocates in proportion to what it shows, not to the value: 64 MiB of
// newlines shown as ten lines must not split 67 M of them. (A table laid
// out for a width may hold rows that fitting shows in a few columns, so the
// allowance is generous: 128 bytes per byte shown, and 1 MiB.)
func TestDisplayBoundedWork(t *testing.T) {
	newlines := Str(strings.Repeat("\n", 64<<20))
	oneLine := Str(strings.Repeat("x", 64<<20))
	nul := Str(strings.Repeat("\x00", 64<<20))
	keys := make([]string, 1<<20)
	vals := make([]Value, len(keys))
	for i := range keys {
		keys[i] = "k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i%5)
		vals[i] = oneLine
	}
	cells := make([]Value, 1<<20)
	for i := range cells {
		cells[i] = oneLine
	}
	same := make([]Value, 200)
	for i := range same {
		same[i] = newlines
	}
	recs := make([]Value, 1<<16)
	for i := range recs {
		recs[i] = NewRecord([]string{"a", "b"}, []Value{oneLine, Int(int64(i))})
	}
	cases := []struct {
		name string
		v    Value
	}{
		{"newlines", newlines},
		{"one long line", oneLine},
		{"nul bytes", nul},
		{"bytes", Bytes(oneLine)},
		{"path", Path(newlines)},
		{"record of a million fields", &Record{keys: keys, vals: vals}},
		{"table of a million rows", &Table{Cols: []string{"c"}, Data: [][]Value{cells}, N: len(cells)}},
		{"list of 200 big strings", NewList(same)},
		{"list of records", NewList(recs)},
		{"outcome stdout", &Outcome{Status: new(int), Stdout: []byte(newlines)}},
	}
	for _, c := range cases {
		for _, b := range []TextBound{
			{Width: 80, Lines: 10, Bytes: 8 << 10},
			{Lines: 10, Bytes: 8 << 10},
			{Width: 80, Bytes: 64 << 10},
			{Bytes: 64 << 10},
		} {
			var s string
			var cut bool
			n := allocated(func() { s, cut = DisplayBounded(c.v, b) })
			if len(s) > b.Bytes || b.Lines > 0 && strings.Count(s, "\n") >= b.Lines {
				t.Errorf("%s %+v: %d bytes, %d lines", c.name, b, len(s), strings.Count(s, "\n")+1)
			}
			if !cut && !strings.Contains(s, elided) {
				t.Errorf("%s %+v: neither reported cut nor marked", c.name, b)
			}
			if limit := uint64(128*b.Bytes + 1<<20); n > limit {
				t.Errorf("%s %+v: allocated %d bytes for %d shown", c.name, b, n, len(s))
			}
		}
	}
}

// TestDisplayBoundedMatchesDisplay checks that a bound a value fits in
// changes nothing.
func TestDisplayBoundedMatchesDisplay(t *testing.T) {
	vals := []Value{
		Str("a\nb\n"), Int(3), vcL(Int(1), Str("two"), vcL(Int(3))),
		vcR("name", Str("x"), "n", Int(2)),
		vcT([]string{"a", "b"}, []Value{Int(1), Str("x")}, []Value{Int(22), Nil}),
		vcL(vcR("a", Int(1)), vcR("a", Int(2), "b", Str("y"))),
		&Outcome{Status: new(int), Stdout: []byte("out\nput\n")},
	}
	for _, v := range vals {
		for _, w := range []int{0, 80} {
			want := Display(v)
			if w > 0 {
				want = DisplayWidth(v, w)
			}
			got, cut := DisplayBounded(v, TextBound{Width: w, Lines: 100, Bytes: 4096})
			if got != want || cut {
				t.Errorf("DisplayBounded(%s, width %d) = %q (cut %v), want %q", Inline(v), w, got, cut, want)
			}
		}
	}
}

// TestInlineLimitWork checks that quoting a huge string reads only what it
// shows.
func TestInlineLimitWork(t *testing.T) {
	big := Str(strings.Repeat("a\x00", 32<<20))
	var s string
	n := allocated(func() { s, _ = InlineLimit(big, 100) })
	if len(s) > 100 || n > 4096 {
		t.Fatalf("InlineLimit: %d bytes shown, %d allocated", len(s), n)
	}
}

// BenchmarkDisplayBounded renders ten lines of big values beside a floor
// that is ten lines to begin with: the big ones should cost about as much.
func BenchmarkDisplayBounded(b *testing.B) {
	b10 := TextBound{Width: 80, Lines: 10, Bytes: 8 << 10}
	cells := make([]Value, 1<<20)
	for i := range cells {
		cells[i] = Int(int64(i))
	}
	for _, c := range []struct {
		name string
		v    Value
	}{
		{"floor-ten-lines", Str(strings.Repeat("line\n", 10))},
		{"newlines-64MiB", Str(strings.Repeat("\n", 64<<20))},
		{"nul-64MiB", Str(strings.Repeat("\x00", 64<<20))},
		{"table-1M-rows", &Table{Cols: []string{"n"}, Data: [][]Value{cells}, N: len(cells)}},
		{"deep-list", deepList(hugeDepth, Int(1))},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				DisplayBounded(c.v, b10)
			}
		})
	}
}
