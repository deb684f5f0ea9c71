package value

import (
	"strings"
	"testing"
	"time"
)

// TestDisplayStyle checks what the Human style changes in a display, and
// that the plain style (every caller that is not a person's terminal)
// keeps the full forms.
func TestDisplayStyle(t *testing.T) {
	dt := vcDT(t, "2026-12-01T10:19:16.436488288Z")
	tod := vcTime(9, 5, 7) + Time(250*time.Millisecond)
	lsCwd := vcT([]string{"path", "name", "type", "modified"},
		[]Value{Path("file_1"), Str("file_1"), Str("file"), dt},
		[]Value{Path("sub"), Str("sub"), Str("dir"), Nil},
	)
	lsSub := vcT([]string{"path", "name", "type"},
		[]Value{Path("sub/x"), Str("x"), Str("file")},
	)
	recs := vcL(vcR("path", Str("a"), "name", Str("a"), "n", Int(1)))
	cases := []struct {
		name         string
		in           Value
		plain, human string
	}{
		{"datetime", dt, "2026-12-01T10:19:16.436488288Z", "2026-12-01T10:19:16Z"},
		{"whole-second-datetime", vcDT(t, "2026-12-01T10:19:16Z"), "2026-12-01T10:19:16Z", "2026-12-01T10:19:16Z"},
		{"time-of-day", tod, "09:05:07.25", "09:05:07"},
		{"record-field", vcR("at", dt), "at  2026-12-01T10:19:16.436488288Z", "at  2026-12-01T10:19:16Z"},
		{"ls-cwd-folds-name", lsCwd,
			"path    name    type  modified\n" +
				"──────  ──────  ────  ──────────────────────────────\n" +
				"file_1  file_1  file  2026-12-01T10:19:16.436488288Z\n" +
				"sub     sub     dir",
			"path    type  modified\n" +
				"──────  ────  ────────────────────\n" +
				"file_1  file  2026-12-01T10:19:16Z\n" +
				"sub     dir"},
		{"ls-subdir-keeps-name", lsSub,
			"path   name  type\n─────  ────  ────\nsub/x  x     file",
			"path   name  type\n─────  ────  ────\nsub/x  x     file"},
		{"records-fold-too", recs,
			"path  name  n\n────  ────  ─\na     a     1",
			"path  n\n────  ─\na     1"},
		{"empty-keeps-columns", vcT([]string{"path", "name"}), "path  name\n────  ────", "path  name\n────  ────"},
		{"no-path-column", vcT([]string{"name"}, []Value{Str("a")}), "name\n────\na", "name\n────\na"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Display(c.in); got != c.plain {
				t.Errorf("plain:\n%s\nwant:\n%s", got, c.plain)
			}
			if got := DisplayStyled(c.in, 0, Style{}); got != c.plain {
				t.Errorf("zero style:\n%s\nwant:\n%s", got, c.plain)
			}
			if got := DisplayStyled(c.in, 0, Human); got != c.human {
				t.Errorf("human:\n%s\nwant:\n%s", got, c.human)
			}
		})
	}
	for _, c := range []struct {
		p    time.Duration
		want string
	}{{0, "2026-12-01T10:19:16.436488288Z"}, {time.Nanosecond, "2026-12-01T10:19:16.436488288Z"},
		{time.Microsecond, "2026-12-01T10:19:16.436488Z"}, {time.Millisecond, "2026-12-01T10:19:16.436Z"},
		{time.Second, "2026-12-01T10:19:16Z"}, {time.Minute, "2026-12-01T10:19:00Z"}} {
		if got := DisplayStyled(dt, 0, Style{TimePrecision: c.p}); got != c.want {
			t.Errorf("precision %v: %s, want %s", c.p, got, c.want)
		}
	}
	// The value itself keeps its precision.
	if got := Inline(dt); !strings.Contains(got, ".436488288") {
		t.Errorf("inline lost precision: %s", got)
	}
}

// TestFoldNamesLooksAtShownRowsOnly: a display bounded to a few lines
// decides the fold on the rows it shows, doing work in proportion to them.
func TestFoldNamesLooksAtShownRowsOnly(t *testing.T) {
	rows := make([][]Value, 0, 1000)
	for i := range 1000 {
		n := Str("f" + strings.Repeat("x", i%3))
		rows = append(rows, []Value{Path(n), n})
	}
	rows[999][1] = Str("different") // past what is shown
	tb := vcT([]string{"path", "name"}, rows...)
	s, cut := DisplayBounded(tb, TextBound{Width: 80, Lines: 5, Bytes: 1 << 20, Style: Human})
	if !cut {
		t.Fatal("a 1000-row table in 5 lines was not cut")
	}
	if strings.Contains(s, "name") {
		t.Errorf("name column kept though every shown row repeats it:\n%s", s)
	}
	if n := strings.Count(s, "\n") + 1; n != 5 {
		t.Errorf("%d lines, want 5:\n%s", n, s)
	}
}
