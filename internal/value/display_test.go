package value

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var vcUpdate = flag.Bool("update-display", false, "rewrite testdata/display/*.golden")

// TestDisplayGolden compares Display output with testdata/display/NAME.golden;
// run with -update-display to rewrite the files after a deliberate change.
func TestDisplayGolden(t *testing.T) {
	status0, status3 := 0, 3
	ls := vcT([]string{"name", "type", "size", "modified"},
		[]Value{Str("a.txt"), Str("file"), Size(0), vcDT(t, "2026-07-09T14:00Z")},
		[]Value{Str("notes-2026.md"), Str("file"), Size(4096), vcDT(t, "2026-07-10T09:30:15Z")},
		[]Value{Str("src"), Str("dir"), Size(1500000), Nil},
	)
	cases := []struct {
		name string
		in   Value
	}{
		{"str", Str("hello\nworld")},
		{"int", Int(42)},
		{"path", Path("src/main.go")},
		{"table", ls},
		{"table_empty", vcT([]string{"name", "size"})},
		{"table_no_columns", vcT(nil)},
		{"table_wide_cell", vcT([]string{"k", "v"},
			[]Value{Str("long"), Str(strings.Repeat("abcdefghij", 8))},
			[]Value{Str("wide"), Str("日本語テキスト")},
			[]Value{Str("multi"), Str("a\nb")},
		)},
		{"list", vcL(Int(1), Str("two"), vcL(Int(3)), vcR("k", Int(4)))},
		{"list_empty", vcL()},
		{"list_of_records", vcL(vcR("name", Str("ada"), "age", Int(36)), vcR("name", Str("grace"), "lang", Str("cobol")))},
		{"record", vcR("name", Str("shoal"), "version", Float(0.5), "tags", vcL(Str("a"), Str("b")), "empty", Str(""), "nothing", Nil)},
		{"record_empty", vcR()},
		{"outcome_structured", &Outcome{Status: &status0, Out: vcR("n", Int(5))}},
		{"outcome_stdout", &Outcome{Status: &status0, Stdout: []byte("line one\nline two\n")}},
		{"outcome_silent_ok", &Outcome{Status: &status0}},
		{"outcome_failed", &Outcome{Status: &status3}},
		{"outcome_signal", &Outcome{Signal: "SIGKILL"}},
	}
	dir := filepath.Join("testdata", "display")
	if *vcUpdate {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Display(c.in) + "\n"
			file := filepath.Join(dir, c.name+".golden")
			if *vcUpdate {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("read golden (run with -update-display to create): %v", err)
			}
			if got != string(want) {
				t.Errorf("Display mismatch for %s\n--- got ---\n%s--- want ---\n%s", c.name, got, want)
			}
		})
	}
}

func TestDisplayAlignment(t *testing.T) {
	out := Display(vcT([]string{"name", "n"},
		[]Value{Str("a"), Int(1)},
		[]Value{Str("日本"), Int(100)},
	))
	lines := strings.Split(out, "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, rule and 2 rows, got %q", out)
	}
	// Every row's last cell ends in the same display column.
	w := textWidth(lines[0])
	for _, l := range lines[1:] {
		if textWidth(l) != w {
			t.Errorf("line %q has width %d, want %d", l, textWidth(l), w)
		}
	}
}

func TestTruncateWidth(t *testing.T) {
	cases := []struct {
		in   string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 5, "abcd…"},
		{"日本語テキスト", 5, "日本…"},
		{"exact", 5, "exact"},
	}
	for _, c := range cases {
		got := truncateWidth(c.in, c.w)
		if got != c.want {
			t.Errorf("truncateWidth(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if textWidth(got) > c.w {
			t.Errorf("truncateWidth(%q, %d) is %d wide", c.in, c.w, textWidth(got))
		}
	}
}

func TestDisplayWidthFitsColumns(t *testing.T) {
	long := strings.Repeat("x", 200)
	tab := &Table{Cols: []string{"name", "path", "size"}, N: 2, Data: [][]Value{
		{Str("a"), Str("b")},
		{Str(long), Str("short")},
		{Size(10), Size(2000)},
	}}
	for _, width := range []int{80, 40, 20} {
		out := DisplayWidth(tab, width)
		for i, line := range strings.Split(out, "\n") {
			if w := textWidth(line); w > width {
				t.Errorf("width %d: line %d is %d columns: %q", width, i, w, line)
			}
		}
		if !strings.Contains(out, "…") || !strings.Contains(out, "name") {
			t.Errorf("width %d: want a cut cell and the header, got\n%s", width, out)
		}
	}
	// Values that already fit render exactly as Display does.
	small := NewList([]Value{Int(1), Str("two")})
	if got, want := DisplayWidth(small, 80), Display(small); got != want {
		t.Errorf("DisplayWidth = %q, want %q", got, want)
	}
	// Long plain lines are cut too.
	if got := DisplayWidth(Str(long), 80); textWidth(got) != 80 || !strings.HasSuffix(got, "…") {
		t.Errorf("long string: %d columns %q", textWidth(got), got)
	}
}
