package term

import (
	"slices"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func TestPickParse(t *testing.T) {
	tests := []struct {
		line    string
		multi   bool
		want    []int
		problem string
	}{
		{line: "2", want: []int{1}},
		{line: "  3 ", want: []int{2}},
		{line: "", want: nil},
		{line: "   ", want: nil},
		{line: "0", problem: "not a number from 1 to 3"},
		{line: "4", problem: "not a number from 1 to 3"},
		{line: "x", problem: "not a number"},
		{line: "1 2", problem: "pick one number"},
		{line: "1, 3", multi: true, want: []int{0, 2}},
		{line: "3 1 3", multi: true, want: []int{2, 0}},
		{line: "1,,2", multi: true, want: []int{0, 1}},
		{line: "1 9", multi: true, problem: `"9" is not a number`},
	}
	for _, tt := range tests {
		got, problem := pickParse(tt.line, 3, tt.multi)
		if tt.problem != "" {
			if !strings.Contains(problem, tt.problem) {
				t.Errorf("pickParse(%q, multi %v): problem %q, want one containing %q", tt.line, tt.multi, problem, tt.problem)
			}
			continue
		}
		if problem != "" || !slices.Equal(got, tt.want) {
			t.Errorf("pickParse(%q, multi %v) = %v, %q; want %v", tt.line, tt.multi, got, problem, tt.want)
		}
	}
}

func TestPickMenuBounds(t *testing.T) {
	items := make([]value.Value, MaxPickShown+7)
	for i := range items {
		items[i] = value.Str(strings.Repeat("x", MaxPickWidth*2))
	}
	menu := pickMenu(items)
	lines := strings.Split(strings.TrimSuffix(menu, "\n"), "\n")
	if len(lines) != MaxPickShown+1 {
		t.Fatalf("menu has %d lines, want %d items and one count line", len(lines), MaxPickShown)
	}
	if !strings.Contains(lines[len(lines)-1], "7 more") {
		t.Errorf("last line %q does not count the items left out", lines[len(lines)-1])
	}
	for _, l := range lines[:3] {
		if n := len([]rune(l)); n > MaxPickWidth+8 {
			t.Errorf("menu line is %d runes, over the %d bound: %q", n, MaxPickWidth, l)
		}
	}
	tab := &value.Table{Cols: []string{"n"}, Data: [][]value.Value{{value.Str("a"), value.Str("b")}}, N: 2}
	got := pickResult(tab, pickItems(tab)[1:])
	if value.Inline(got) != value.Inline(&value.Table{Cols: []string{"n"}, Data: [][]value.Value{{value.Str("b")}}, N: 1}) {
		t.Errorf("multi pick from a table = %s, want a one-row table", value.Inline(got))
	}
}

// FuzzPickParse: any answer gives indices in range without repeats, a
// problem, or a cancel — never a panic.
func FuzzPickParse(f *testing.F) {
	for _, s := range []string{"1", "2, 3", "", "x", "0", "99999999999999999999", "1 1 1", "-1"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, line string, multi bool) {
		idx, problem := pickParse(line, 5, multi)
		if problem != "" && idx != nil {
			t.Fatalf("pickParse(%q) gave both %v and %q", line, idx, problem)
		}
		if !multi && len(idx) > 1 {
			t.Fatalf("pickParse(%q) chose %v without multi", line, idx)
		}
		seen := map[int]bool{}
		for _, i := range idx {
			if i < 0 || i >= 5 || seen[i] {
				t.Fatalf("pickParse(%q) = %v: out of range or repeated", line, idx)
			}
			seen[i] = true
		}
	})
}
