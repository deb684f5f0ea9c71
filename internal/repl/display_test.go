package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runLines runs lines through the loop with cfg's display settings on a
// terminal width x height, returning stdout and what the pager was given.
func runLines(t *testing.T, lines []string, disp Display, width, height int, pageErr error) (out string, paged []string) {
	t.Helper()
	in, stdout, errs := newSession(t)
	defer in.Close()
	page := func(_ context.Context, text string) error {
		paged = append(paged, text)
		return pageErr
	}
	cfg := Config{Interp: in, Stdout: stdout, Stderr: errs, Display: disp,
		Width: func() int { return width }, Height: func() int { return height }, Page: page}
	if code := Run(context.Background(), &script{lines: lines}, cfg, nil); code != 0 {
		t.Fatalf("exit code %d (stderr %q)", code, errs.String())
	}
	if errs.Len() > 0 {
		t.Fatalf("stderr %q", errs.String())
	}
	return stdout.String(), paged
}

// TestTallTable: a table taller than the terminal shows its header, the
// rows that fit and a count line by default; with TallPager it goes to
// the pager whole; with TallAll it prints whole; a short one prints whole
// in every mode.
func TestTallTable(t *testing.T) {
	rows := "(0..150).map(i => {n: i, sq: i * i})"
	t.Run("head", func(t *testing.T) {
		out, paged := runLines(t, []string{rows}, Display{}, 80, 24, nil)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 23 { // one line left for the prompt
			t.Fatalf("%d lines, want 23:\n%s", len(lines), out)
		}
		if !strings.HasPrefix(strings.TrimSpace(lines[0]), "n") || !strings.Contains(lines[0], "sq") || !strings.HasPrefix(strings.TrimSpace(lines[1]), "─") {
			t.Errorf("header not first:\n%s", out)
		}
		// 24 lines: header, rule, 20 rows, count line, prompt.
		if want := "… 130 more rows (150 total)"; lines[22] != want {
			t.Errorf("count line %q, want %q", lines[22], want)
		}
		if strings.TrimSpace(lines[21]) != "19  361" {
			t.Errorf("last row shown %q, want the 20th", lines[21])
		}
		if len(paged) != 0 {
			t.Errorf("paged in head mode")
		}
	})
	t.Run("pager", func(t *testing.T) {
		out, paged := runLines(t, []string{rows}, Display{Tall: TallPager}, 80, 24, nil)
		if out != "" || len(paged) != 1 {
			t.Fatalf("stdout %q, %d pager runs", out, len(paged))
		}
		if n := strings.Count(paged[0], "\n"); n != 152 {
			t.Errorf("pager got %d lines, want 152 (header, rule, 150 rows)", n)
		}
	})
	t.Run("pager-fails-prints-whole", func(t *testing.T) {
		out, paged := runLines(t, []string{rows}, Display{Tall: TallPager}, 80, 24, errors.New("no less"))
		if len(paged) != 1 || strings.Count(out, "\n") != 152 {
			t.Fatalf("%d pager runs, stdout %d lines", len(paged), strings.Count(out, "\n"))
		}
	})
	t.Run("all", func(t *testing.T) {
		out, paged := runLines(t, []string{rows}, Display{Tall: TallAll}, 80, 24, nil)
		if len(paged) != 0 || strings.Count(out, "\n") != 152 {
			t.Fatalf("%d pager runs, stdout %d lines", len(paged), strings.Count(out, "\n"))
		}
	})
	t.Run("unknown-height-prints-whole", func(t *testing.T) {
		out, _ := runLines(t, []string{rows}, Display{}, 80, 0, nil)
		if strings.Count(out, "\n") != 152 {
			t.Fatalf("stdout %d lines", strings.Count(out, "\n"))
		}
	})
	for _, mode := range []Tall{TallHead, TallPager, TallAll} {
		t.Run(fmt.Sprintf("short-%d", mode), func(t *testing.T) {
			out, paged := runLines(t, []string{"(0..21).map(i => {n: i})"}, Display{Tall: mode}, 80, 24, nil)
			if len(paged) != 0 || strings.Count(out, "\n") != 23 || strings.Contains(out, "more") {
				t.Fatalf("a table that fits was changed (%d pager runs):\n%s", len(paged), out)
			}
		})
	}
}

// TestTallCountLines: the count line names what was left out.
func TestTallCountLines(t *testing.T) {
	cases := []struct{ src, want string }{
		{"(0..100).map(i => i)", "… 92 more items (100 total)"},
		{`(0..50).map(i => "line").join("\n")`, "… 42 more lines (50 total)"},
		{"(0..30).map(i => {n: i})", "… 24 more rows (30 total)"},
		{"[{n: 1}] + (0..30).map(i => i)", "… 23 more items (31 total)"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			out, _ := runLines(t, []string{c.src}, Display{}, 80, 10, nil)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 9 || lines[8] != c.want {
				t.Errorf("got %d lines ending %q, want 9 ending %q:\n%s", len(lines), lines[len(lines)-1], c.want, out)
			}
		})
	}
}

// TestTallLs: `ls` of a directory of 150 files at a 24-line terminal
// keeps its header and counts the rows it left out.
func TestTallLs(t *testing.T) {
	in, stdout, errs := newSession(t)
	defer in.Close()
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(in.Dir(), fmt.Sprintf("f%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Interp: in, Stdout: stdout, Stderr: errs, Width: func() int { return 100 }, Height: func() int { return 24 }}
	if code := Run(context.Background(), &script{lines: []string{"ls"}}, cfg, nil); code != 0 || errs.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 23 || !strings.HasPrefix(lines[0], "path") || lines[22] != "… 130 more rows (150 total)" {
		t.Errorf("got %d lines:\n%s", len(lines), stdout.String())
	}
	if f := strings.Fields(lines[2]); f[0] != "f0" || strings.Fields(lines[21])[0] != "f19" {
		t.Errorf("rows not in natural order from f0:\n%s", stdout.String())
	}
}

// TestLsDisplay: `ls` at the prompt shows names in natural order, times
// to the second, and no `name` column repeating `path`; the rows keep
// everything.
func TestLsDisplay(t *testing.T) {
	in, stdout, errs := newSession(t)
	defer in.Close()
	dir := in.Dir()
	for _, n := range []string{"file_7", "file_69", "file_10", "file_1"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := &script{lines: []string{"ls", "(ls).out.first().name", "\"{(ls).out.first().modified}\".contains(\".\")"}}
	if code := Run(context.Background(), s, Config{Interp: in, Stdout: stdout, Stderr: errs}, nil); code != 0 || errs.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	out := stdout.String()
	lines := strings.Split(out, "\n")
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "path type size modified" {
		t.Errorf("header %q", lines[0])
	}
	var names []string
	for _, l := range lines[2:6] {
		names = append(names, strings.Fields(l)[0])
		if ts := strings.Fields(l)[3]; len(ts) != len("2026-12-01T10:19:16Z") {
			t.Errorf("time %q not to the second", ts)
		}
	}
	if got := strings.Join(names, " "); got != "file_1 file_7 file_10 file_69" {
		t.Errorf("order %q, want natural", got)
	}
	if !bytes.HasSuffix(stdout.Bytes(), []byte("file_1\ntrue\n")) {
		t.Errorf("rows lost name or time: %q", out)
	}
}

// TestDisplayOptions: HeadRows bounds a head below the terminal's height;
// TimePrecision and KeepNames change what values show.
func TestDisplayOptions(t *testing.T) {
	out, _ := runLines(t, []string{"(0..150).map(i => {n: i})"}, Display{HeadRows: 5}, 80, 40, nil)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 8 || lines[7] != "… 145 more rows (150 total)" || strings.TrimSpace(lines[6]) != "4" {
		t.Errorf("HeadRows 5 gave %d lines:\n%s", len(lines), out)
	}
	out, _ = runLines(t, []string{"(0..150).map(i => {n: i})"}, Display{PromptLines: 3}, 80, 24, nil)
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 21 || lines[20] != "… 132 more rows (150 total)" {
		t.Errorf("a three-line prompt left %d lines:\n%s", len(lines), out)
	}
	out, _ = runLines(t, []string{"(0..150).map(i => i)"}, Display{HeadRows: 5}, 80, 40, nil)
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 6 || lines[5] != "… 145 more items (150 total)" {
		t.Errorf("HeadRows 5 of a list:\n%s", out)
	}
	dt := `{at: t"2026-12-01T10:19:16.436488288Z", path: "a", name: "a"}`
	for _, c := range []struct {
		d    Display
		want string
	}{
		{Display{}, "at    2026-12-01T10:19:16Z\npath  a\nname  a\n"},
		{Display{TimePrecision: time.Millisecond}, "at    2026-12-01T10:19:16.436Z\npath  a\nname  a\n"},
		{Display{TimePrecision: time.Nanosecond}, "at    2026-12-01T10:19:16.436488288Z\npath  a\nname  a\n"},
	} {
		if out, _ := runLines(t, []string{dt}, c.d, 80, 40, nil); out != c.want {
			t.Errorf("%+v: %q, want %q", c.d, out, c.want)
		}
	}
	tbl := `[{path: "a", name: "a", n: 1}]`
	if out, _ := runLines(t, []string{tbl}, Display{}, 80, 40, nil); strings.Contains(out, "name") {
		t.Errorf("name column kept by default:\n%s", out)
	}
	if out, _ := runLines(t, []string{tbl}, Display{KeepNames: true}, 80, 40, nil); !strings.Contains(out, "name") {
		t.Errorf("KeepNames left out the name column:\n%s", out)
	}
}

func TestParseTall(t *testing.T) {
	for word, want := range map[string]Tall{"head": TallHead, "auto": TallPager, "never": TallAll} {
		if got, err := ParseTall(word); err != nil || got != want {
			t.Errorf("ParseTall(%q) = %v, %v; want %v", word, got, err, want)
		}
	}
	for _, bad := range []string{"", "Auto", "always"} {
		if _, err := ParseTall(bad); err == nil || !strings.Contains(err.Error(), "render.paging") {
			t.Errorf("ParseTall(%q): %v, want an error naming render.paging", bad, err)
		}
	}
}

// TestPagedTextIsBounded: what goes to the pager is at most MaxPagedBytes
// and a count line, however large the value.
func TestPagedTextIsBounded(t *testing.T) {
	in, _, errs := newSession(t)
	defer in.Close()
	// 600,000 rows of about 70 bytes (cells show at most 60 columns): about
	// 40 MiB of display.
	v, err := in.Eval(context.Background(), `let row = (0..100).map(i => "x").join(""); (0..600000).map(i => {n: i, s: row})`)
	if err != nil {
		t.Fatal(err, errs.String())
	}
	var paged string
	var out bytes.Buffer
	Display{Tall: TallPager}.show(context.Background(), &out, v, 200, 24, func(_ context.Context, text string) error {
		paged = text
		return nil
	})
	if out.Len() != 0 || len(paged) == 0 {
		t.Fatalf("stdout %d bytes, paged %d", out.Len(), len(paged))
	}
	if len(paged) > MaxPagedBytes+200 {
		t.Errorf("paged %d bytes, past MaxPagedBytes %d", len(paged), MaxPagedBytes)
	}
	lines := strings.Split(strings.TrimSuffix(paged, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "… ") || !strings.HasSuffix(last, " more rows (600000 total)") {
		t.Errorf("paged text ends %q, want a count line", last)
	}
}
