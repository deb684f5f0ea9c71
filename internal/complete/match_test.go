package complete

import (
	"slices"
	"testing"
)

// TestMatchSettings: a person's completion settings decide which tiers a
// typed word admits; no Match (the kernel's) admits all three.
func TestMatchSettings(t *testing.T) {
	names := func() []string { return []string{"git", "grep", "Gimp", "digit"} }
	cases := []struct {
		name  string
		match *Match
		typed string
		want  []string
	}{
		{"exact only", &Match{}, "gi", []string{"git"}},
		{"case folded", &Match{CaseInsensitive: true}, "gi", []string{"git", "Gimp"}},
		{"case folded, upper typed", &Match{CaseInsensitive: true}, "GI", []string{"Gimp", "git"}},
		{"fuzzy keeps case", &Match{Fuzzy: true}, "gt", []string{"git", "digit"}},
		{"fuzzy and folded", &Match{Fuzzy: true, CaseInsensitive: true}, "Gt", []string{"git", "digit"}},
		{"no fuzzy: nothing", &Match{}, "gt", nil},
		{"bounded", &Match{Fuzzy: true, CaseInsensitive: true, MaxResults: 1}, "g", []string{"git"}},
		{"kernel: every tier", nil, "gt", []string{"git", "digit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := Context{PathCommands: names, Match: c.match,
				Namespaces: func() []string { return nil }}
			var got []string
			for _, cand := range Complete(c.typed, len(c.typed), ctx) {
				if cand.Kind == KindCommand {
					got = append(got, cand.Label)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%q: got %q, want %q", c.typed, got, c.want)
			}
		})
	}
}
