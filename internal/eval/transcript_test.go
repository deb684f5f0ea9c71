package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// runTranscript runs a transcript file in the language against in: each
// case is a "> source" line followed by "= value" (the value's Inline
// rendering) or "! code: text the message contains"; other lines are
// comments. vars rewrites both lines before use (nil: none). It returns
// the number of cases run.
func runTranscript(t *testing.T, in *Interp, file string, vars *strings.Replacer) int {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if vars == nil {
		vars = strings.NewReplacer()
	}
	cases := 0
	lines := strings.Split(string(text), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "> ") {
			continue
		}
		if i+1 >= len(lines) {
			t.Fatalf("%s:%d: a source with no expectation", file, i+1)
		}
		prog, want := vars.Replace(l[2:]), vars.Replace(lines[i+1])
		i++
		cases++
		v, err := in.Eval(context.Background(), prog)
		switch {
		case strings.HasPrefix(want, "= "):
			if err != nil {
				t.Errorf("%s:%d: %s: %v, want %s", file, i, prog, err, want[2:])
			} else if got := value.Inline(v); got != want[2:] {
				t.Errorf("%s:%d: %s = %s, want %s", file, i, prog, got, want[2:])
			}
		case strings.HasPrefix(want, "! "):
			code, msg, _ := strings.Cut(want[2:], ": ")
			e, ok := err.(*value.Error)
			if !ok {
				t.Errorf("%s:%d: %s = %v (%v), want error %s", file, i, prog, v, err, want[2:])
				continue
			}
			if e.Code != code || !strings.Contains(e.Error(), msg) {
				t.Errorf("%s:%d: %s: error %s %q, want %s containing %q", file, i, prog, e.Code, e.Error(), code, msg)
			}
		default:
			t.Fatalf("%s:%d: expectation %q is neither = nor !", file, i+1, want)
		}
	}
	return cases
}
