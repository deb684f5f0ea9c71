package repl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// script is a LineReader that answers from a list, then io.EOF. An entry
// of nil error with line "\x03" stands for Ctrl-C.
type script struct {
	lines   []string
	prompts []string
	onRead  func(i int)
}

func (s *script) ReadLine(prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	i := len(s.prompts) - 1
	if s.onRead != nil {
		s.onRead(i)
	}
	if i >= len(s.lines) {
		return "", io.EOF
	}
	if s.lines[i] == "\x03" {
		return "", ErrInterrupted
	}
	return s.lines[i], nil
}

func newSession(t *testing.T) (*eval.Interp, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errs bytes.Buffer
	in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(host.AllowAll), Dir: t.TempDir(), Env: []string{"HOME=/nonexistent"},
		Stdout: &out, Stderr: &errs, REPL: true})
	if err != nil {
		t.Fatal(err)
	}
	return in, &out, &errs
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		out      string
		errHas   []string
		code     int
		prompts  []string // checked when set
		recorded []string // checked when set
	}{
		{name: "value", lines: []string{"1 + 2"}, out: "3\n"},
		{name: "null-not-shown", lines: []string{"let a = 1", "a + 1"}, out: "2\n"},
		{name: "blank-lines", lines: []string{"", "   ", "7"}, out: "7\n"},
		{name: "continuation", lines: []string{"let xs = [", "1, 2,", "3]", "xs.len()"}, out: "3\n",
			prompts:  []string{Prompt, ContinuePrompt, ContinuePrompt, Prompt, Prompt},
			recorded: []string{"let xs = [\n1, 2,\n3]", "xs.len()"}},
		{name: "it-and-out", lines: []string{"10", "it * 2", "out.len()"}, out: "10\n20\n2\n"},
		{name: "parse-error-goes-on", lines: []string{"1 | 2", "5"}, out: "5\n", errHas: []string{"<repl>", "^", "hint:"}},
		{name: "language-error-goes-on", lines: []string{"1 / 0", "6"}, out: "6\n", errHas: []string{"div_zero"}},
		{name: "interrupt-drops-pending", lines: []string{"let x = [", "\x03", "8"}, out: "8\n"},
		{name: "exit-code", lines: []string{"1", "exit 3", "2"}, out: "1\n", code: 3},
		{name: "eof-mid-statement", lines: []string{"let y = ["}, out: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, out, errs := newSession(t)
			var rec []string
			s := &script{lines: tc.lines}
			code := Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs,
				Record: func(src string) { rec = append(rec, src) }}, nil)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if out.String() != tc.out {
				t.Errorf("stdout %q, want %q (stderr %q)", out.String(), tc.out, errs.String())
			}
			for _, h := range tc.errHas {
				if !strings.Contains(errs.String(), h) {
					t.Errorf("stderr %q lacks %q", errs.String(), h)
				}
			}
			if len(tc.errHas) == 0 && errs.Len() > 0 {
				t.Errorf("unexpected stderr %q", errs.String())
			}
			if tc.prompts != nil && strings.Join(s.prompts, "|") != strings.Join(tc.prompts, "|") {
				t.Errorf("prompts %q, want %q", s.prompts, tc.prompts)
			}
			if tc.recorded != nil && strings.Join(rec, "|") != strings.Join(tc.recorded, "|") {
				t.Errorf("recorded %q, want %q", rec, tc.recorded)
			}
		})
	}
}

// TestInterruptStopsStatement: Interrupt during a long statement cancels
// only that statement; the loop reads on.
func TestInterruptStopsStatement(t *testing.T) {
	in, out, errs := newSession(t)
	var intr Interrupter
	intr.Interrupt() // nothing running: no effect
	s := &script{lines: []string{"sleep 30s", "9"}}
	s.onRead = func(i int) {
		if i == 0 {
			go func() {
				time.Sleep(100 * time.Millisecond)
				intr.Interrupt()
			}()
		}
	}
	start := time.Now()
	if code := Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs}, &intr); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("the statement was not interrupted")
	}
	// One quiet line for the interrupt, no diagnostic.
	if errs.String() != "^C interrupted\n" || out.String() != "9\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errs.String())
	}
}

func TestCompletionContext(t *testing.T) {
	in, _, _ := newSession(t)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gitfake"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval(context.Background(), `let xs = [1, 2]; env.PATH = "`+bin+`"`); err != nil {
		t.Fatal(err)
	}
	var c Completer
	cc := c.Context(context.Background(), in, host.NewOS(host.AllowAll))
	labels := func(src string) []string {
		var out []string
		for _, cand := range complete.Complete(src, len(src), cc) {
			out = append(out, cand.Label)
		}
		return out
	}
	if got := labels("xs.le"); !contains(got, "len") {
		t.Errorf("xs.le: %q lacks len", got)
	}
	if got := labels("let n = x"); !contains(got, "xs") {
		t.Errorf("let n = x: %q lacks xs", got)
	}
	if got := labels("ec"); !contains(got, "echo") {
		t.Errorf("ec: %q lacks echo", got)
	}
	// Programs on the session's PATH, listed through the host.
	if got := labels("gitf"); !contains(got, "gitfake") {
		t.Errorf("gitf: %q lacks gitfake from PATH", got)
	}
	// A builtin's declared flags.
	if got := labels("ls --"); len(got) == 0 || !strings.HasPrefix(got[0], "--") {
		t.Errorf("ls --: %q", got)
	}
	// The PATH listing is kept, and listed again when PATH changes.
	if err := os.WriteFile(filepath.Join(bin, "gitfake2"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := labels("gitf"); contains(got, "gitfake2") {
		t.Errorf("the PATH listing was read again without a change: %q", got)
	}
	if _, err := in.Eval(context.Background(), `env.PATH = "`+bin+`:/nonexistent"`); err != nil {
		t.Fatal(err)
	}
	cc = c.Context(context.Background(), in, host.NewOS(host.AllowAll))
	if got := labels("gitf"); !contains(got, "gitfake2") {
		t.Errorf("a changed PATH was not listed again: %q", got)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestOutIsBounded: `out` keeps the last eval.MaxTranscript values.
func TestOutIsBounded(t *testing.T) {
	in, _, _ := newSession(t)
	for i := 0; i < eval.MaxTranscript+5; i++ {
		if _, err := in.Eval(context.Background(), "1"); err != nil {
			t.Fatal(err)
		}
	}
	v, err := in.Eval(context.Background(), "out.len()")
	if err != nil || v == nil {
		t.Fatal(err)
	}
	if got, want := value.Inline(v), fmt.Sprint(eval.MaxTranscript); got != want {
		t.Errorf("out.len() = %s, want %s", got, want)
	}
}

// TestBackgroundJobReturnsToPrompt: `cmd &` gives the prompt back while
// the job runs; jobs lists it, bg and fg resume and wait for one, kill
// cancels one.
func TestBackgroundJobReturnsToPrompt(t *testing.T) {
	in, out, errs := newSession(t)
	defer in.Close()
	s := &script{lines: []string{
		"^sleep 30 &",
		"jobs.map(.state)",
		"let t = { sleep 20ms; 9 } &",
		"t.suspend()",
		"bg %2",
		"fg %2",
		"kill %1",
		"try { wait %1 } catch e { e.code }",
		"jobs.map(.state)",
	}}
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs}, nil) }()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d (stderr %q)", code, errs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the REPL waited for the background job")
	}
	want := "[1] ^sleep 30\n0  running\n9\ntask_cancelled\n0  cancelled\n1  done\n"
	if got := out.String(); got != want {
		t.Errorf("stdout %q, want %q (stderr %q)", got, want, errs.String())
	}
}

// TestNullBuiltinNotPrinted: a builtin that answers nothing (sleep) prints
// nothing at the prompt, where it printed "null" (issue 14).
func TestNullBuiltinNotPrinted(t *testing.T) {
	in, out, errs := newSession(t)
	s := &script{lines: []string{"sleep 1ms", "echo hi"}}
	if code := Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs}, nil); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if out.String() != "hi\n" || errs.String() != "" {
		t.Errorf("stdout %q, stderr %q; want only hi", out.String(), errs.String())
	}
}

func TestPromptSeesTheLastStatus(t *testing.T) {
	in, out, errs := newSession(t)
	s := &script{lines: []string{"1", "1 / 0", "let x = [", "1]", "^sh -c 'exit 7'", "x.len(", "2"}}
	Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs,
		Prompt:         func(st int) string { return fmt.Sprintf("[%d]> ", st) },
		ContinuePrompt: "..> ",
		Diag:           diag.Styles{Error: "\x1b[31m"},
	}, nil)
	// "x.len(" then "2" is one incomplete entry; the last read meets EOF.
	want := []string{"[0]> ", "[0]> ", "[1]> ", "..> ", "[0]> ", "[7]> ", "..> ", "..> "}
	if strings.Join(s.prompts, "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q, want %q", s.prompts, want)
	}
	if !strings.Contains(errs.String(), "\x1b[31merror[div_zero]:\x1b[0m") {
		t.Errorf("diagnostic not styled: %q", errs.String())
	}
}

func TestStatus(t *testing.T) {
	seven, zero := 7, 0
	cases := []struct {
		name string
		v    value.Value
		err  error
		want int
	}{
		{"value", value.Int(3), nil, 0},
		{"ok outcome", &value.Outcome{Status: &zero}, nil, 0},
		{"failed outcome", &value.Outcome{Status: &seven}, nil, 7},
		{"signalled", &value.Outcome{Signal: "SIGKILL"}, nil, 1},
		{"error", nil, value.Errorf("div_zero", "x"), 1},
		{"cmd_failed", nil, &value.Error{Code: "cmd_failed", Status: value.Int(9)}, 9},
		{"cmd_failed out of range", nil, &value.Error{Code: "cmd_failed", Status: value.Int(300)}, 1},
	}
	for _, c := range cases {
		if got := Status(c.v, c.err); got != c.want {
			t.Errorf("%s: Status = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDeclaredCommandsTakeArgumentsOnLaterLines: a function or alias
// declared on one line is a command on the next, arguments and all.
func TestDeclaredCommandsTakeArgumentsOnLaterLines(t *testing.T) {
	in, out, errs := newSession(t)
	s := &script{lines: []string{"fn twice(a: int) { a * 2 }", "twice 21", "alias hi = echo hello", "hi there", "let x = 5", "x", "let f = y => y + 1", "f"}}
	Run(context.Background(), s, Config{Interp: in, Stdout: out, Stderr: errs}, nil)
	if errs.Len() != 0 {
		t.Errorf("stderr: %s", errs.String())
	}
	for _, want := range []string{"42\n", "hello there\n", "5\n", "<fn(y)>"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
