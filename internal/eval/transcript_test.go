package eval

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// runTranscript runs a transcript file against in, one session for the
// whole file so bindings carry from case to case. A case is one or more
// "> source" lines (joined with newlines into one program), then any "| "
// lines giving what the program writes to out (nil: not checked), then
// "= value" (the value's Inline rendering) or "! code: text the message
// or hint contains" (a parse error's code is parse_error). Other lines are commentary. rewrite, when not nil, is applied
// to sources and expectations. It returns the number of cases run.
func runTranscript(t *testing.T, in *Interp, path string, out *bytes.Buffer, rewrite *strings.Replacer) int {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sub := func(s string) string {
		if rewrite == nil {
			return s
		}
		return rewrite.Replace(s)
	}
	lines := strings.Split(string(text), "\n")
	cases := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "> ") {
			continue
		}
		start := i + 1
		var src []string
		for ; i < len(lines) && strings.HasPrefix(lines[i], "> "); i++ {
			src = append(src, sub(lines[i][2:]))
		}
		var wantOut []string
		for ; i < len(lines) && (strings.HasPrefix(lines[i], "| ") || lines[i] == "|"); i++ {
			wantOut = append(wantOut, strings.TrimPrefix(strings.TrimPrefix(lines[i], "|"), " "))
		}
		if i >= len(lines) {
			t.Fatalf("%s:%d: a source with no expectation", path, start)
		}
		prog, want := strings.Join(src, "\n"), sub(lines[i])
		cases++
		if out != nil {
			out.Reset()
		}
		v, err := in.Eval(context.Background(), prog)
		if wantOut != nil {
			if out == nil {
				t.Fatalf("%s:%d: output expected but not captured", path, start)
			}
			if got, w := strings.TrimRight(out.String(), "\n"), strings.Join(wantOut, "\n"); got != w {
				t.Errorf("%s:%d: %s printed %q, want %q", path, start, prog, got, w)
			}
		}
		switch {
		case strings.HasPrefix(want, "= "):
			if err != nil {
				t.Errorf("%s:%d: %s: %v, want %s", path, start, prog, err, want[2:])
			} else if got := value.Inline(v); got != want[2:] {
				t.Errorf("%s:%d: %s = %s, want %s", path, start, prog, got, want[2:])
			}
		case strings.HasPrefix(want, "! "):
			code, msg, _ := strings.Cut(want[2:], ": ")
			if se, ok := err.(*syntax.Error); ok {
				if code != "parse_error" || !strings.Contains(se.Error(), msg) {
					t.Errorf("%s:%d: %s: parse error %q, want %s containing %q", path, start, prog, se.Error(), code, msg)
				}
				continue
			}
			e, ok := err.(*value.Error)
			if !ok {
				t.Errorf("%s:%d: %s = %v (%v), want error %s", path, start, prog, v, err, want[2:])
				continue
			}
			if e.Code != code || !strings.Contains(e.Error()+"\n"+e.Hint, msg) {
				t.Errorf("%s:%d: %s: error %s %q (hint %q), want %s containing %q", path, start, prog, e.Code, e.Error(), e.Hint, code, msg)
			}
		default:
			t.Fatalf("%s:%d: expectation %q is neither = nor !", path, i+1, want)
		}
	}
	return cases
}
