package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// runTranscript runs the transcript file path (under testdata/) against in
// and returns how many cases it read. A transcript is a series of
// "> source" lines, each followed by "= value" (the value's Inline
// rendering) or "! code: text the message contains"; other lines are
// comments. vars, when not nil, is applied to both sides of every case
// (for values only the test knows, such as a server's address).
func runTranscript(t *testing.T, in *Interp, path string, vars *strings.Replacer) int {
	t.Helper()
	text, err := os.ReadFile(path)
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
			t.Fatalf("%s:%d: a source with no expectation", path, i+1)
		}
		prog, want := vars.Replace(l[2:]), vars.Replace(lines[i+1])
		i++
		cases++
		v, err := in.Eval(context.Background(), prog)
		switch {
		case strings.HasPrefix(want, "= "):
			if err != nil {
				t.Errorf("%s:%d: %s: %v, want %s", path, i, prog, err, want[2:])
			} else if got := value.Inline(v); got != want[2:] {
				t.Errorf("%s:%d: %s = %s, want %s", path, i, prog, got, want[2:])
			}
		case strings.HasPrefix(want, "! "):
			code, msg, _ := strings.Cut(want[2:], ": ")
			e, ok := err.(*value.Error)
			if !ok {
				t.Errorf("%s:%d: %s = %v (%v), want error %s", path, i, prog, v, err, want[2:])
				continue
			}
			if e.Code != code || !strings.Contains(e.Error(), msg) {
				t.Errorf("%s:%d: %s: error %s %q, want %s containing %q", path, i, prog, e.Code, e.Error(), code, msg)
			}
		default:
			t.Fatalf("%s:%d: expectation %q is neither = nor !", path, i+1, want)
		}
	}
	return cases
}
