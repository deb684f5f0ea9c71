package complete

import (
	"testing"
	"unicode/utf8"
)

// FuzzComplete: any source and cursor completes without panicking, within
// the bound, and every candidate replaces a span inside the source that
// starts at or before the cursor and ends at or after it.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{
		"ls src/", `"abc".up`, "rec?.ow", "cat (ls).fi", `"x {na`, "# c\nca", "0..a",
		"[1].fi", "}}}.x", "((", `"""a`, "'''", "~", "é.", "x = ./", "5kb.",
	} {
		f.Add(s, len(s))
		f.Add(s, len(s)/2)
	}
	f.Fuzz(func(t *testing.T, src string, cursor int) {
		ctx := testCtx()
		limit := MaxCandidates
		if cursor%5 != 0 { // a person's settings, varied by the cursor's value
			ctx.Match = &Match{CaseInsensitive: cursor%2 == 0, Fuzzy: cursor%3 == 0, MaxResults: cursor % 7}
			if ctx.Match.MaxResults > 0 {
				limit = ctx.Match.MaxResults
			}
		}
		cs := Complete(src, cursor, ctx)
		if len(cs) > limit {
			t.Fatalf("%d candidates, bound %d", len(cs), limit)
		}
		cur := clampCursor(src, cursor)
		for _, c := range cs {
			r := c.Replace
			if r.Start < 0 || int(r.End) > len(src) || int(r.Start) > cur || int(r.End) < cur {
				t.Fatalf("Complete(%q, %d): %q replaces %+v, cursor %d", src, cursor, c.Label, r, cur)
			}
			if utf8.ValidString(src) && !utf8.ValidString(src[r.Start:r.End]) {
				t.Fatalf("Complete(%q, %d): span %+v splits a rune", src, cursor, r)
			}
			if c.Label == "" || c.Kind == "" {
				t.Fatalf("empty candidate %+v", c)
			}
		}
	})
}
