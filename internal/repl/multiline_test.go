package repl

import (
	"strings"
	"testing"
)

func TestIncomplete(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"let xs = [3,", true},
		{"fn f() {", true},
		{`"open`, true},
		{"1 +", true},
		{"20 + 22", false},
		{"[3,1,2]\n  .sort()", false}, // a leading `.` continues the chain
		{"if true {\n  1\n}\nelse {\n  2\n}", false},
		{"1 | 2", false}, // wrong, not unfinished: the loop reports it
		{"", false},
	} {
		if got := Incomplete(tc.src, nil); got != tc.want {
			t.Errorf("Incomplete(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
	if Incomplete("["+strings.Repeat(" ", MaxPending), nil) {
		t.Error("a source past MaxPending still asks for more")
	}
}
