// Package evaltest runs transcript tests: files of Shoal sources and the
// values, errors and output they must give, run against one evaluation
// session. It is the one transcript runner of the tree, used by the
// language's own tests (internal/eval) and by every standard-library
// package (internal/lib/...) for the testdata/*.txt beside it; Elvish's
// evaltest is the model.
//
// It imports neither the evaluator nor the standard library: a Session is
// anything that evaluates source, so the evaluator's in-package tests can
// use it without an import cycle, and a library package passes a session
// built on the registry it is tested with (internal/stdlib's).
//
// A transcript case is one or more "> source" lines (joined with newlines
// into one program), then any "| " lines giving what the program writes to
// the session's output (checked only when the caller captures it), then
// "= value" (the value's Inline rendering) or "! code: text the message or
// hint contains" (a parse error's code is parse_error). Every other line is
// commentary. One session runs the whole file, so bindings and the working
// directory carry from case to case.
package evaltest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Session is one evaluation session a transcript runs against
// (*eval.Interp is one).
type Session interface {
	Eval(ctx context.Context, src string) (value.Value, error)
}

// NewSession makes a fresh session for one transcript file. out, when not
// nil, is where the session's statement output goes, to check "| " lines
// against.
type NewSession func(t *testing.T) (s Session, out *bytes.Buffer)

// Run runs each file (a path or a glob such as "testdata/*.txt") as a
// subtest named by the file, in a fresh session from newSession. A
// pattern that matches nothing, or a file with no case, fails.
func Run(t *testing.T, newSession NewSession, files ...string) {
	t.Helper()
	for _, pattern := range files {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatalf("transcript pattern %q: %v", pattern, err)
		}
		if len(matches) == 0 {
			t.Fatalf("transcript pattern %q matches no file", pattern)
		}
		for _, path := range matches {
			t.Run(filepath.Base(path), func(t *testing.T) {
				s, out := newSession(t)
				if n := RunFile(t, s, path, out, nil); n == 0 {
					t.Fatalf("%s has no case", path)
				}
			})
		}
	}
}

// RunFile runs the transcript at path against s, one session for the
// whole file. out, when not nil, is the session's output, reset before
// each case. rewrite, when not nil, is applied to sources and
// expectations (placeholders such as $ROOT). It returns the number of
// cases run.
func RunFile(t *testing.T, s Session, path string, out *bytes.Buffer, rewrite *strings.Replacer) int {
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
		v, err := s.Eval(context.Background(), prog)
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
