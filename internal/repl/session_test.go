package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// fakeSession records what the loop asks of a Session.
type fakeSession struct {
	srcs []string
	exit *int
}

func (f *fakeSession) IsBound(name string) bool { return name == "bound" }

func (f *fakeSession) Eval(_ context.Context, src string, prog *syntax.Program) (value.Value, error) {
	f.srcs = append(f.srcs, src)
	switch {
	case strings.HasPrefix(src, "exit"):
		code := 4
		f.exit = &code
		return value.Null{}, nil
	case src == "boom":
		return nil, &value.Error{Code: "type_error", Msg: "boom", Span: syntax.Span{Start: 0, End: 4}, HasPos: true}
	}
	return value.Int(int64(len(prog.Stmts))), nil
}

func (f *fakeSession) ExitRequested() (int, bool) {
	if f.exit == nil {
		return 0, false
	}
	return *f.exit, true
}

// TestRunThroughSession: with Session set the loop gathers continuation
// lines as ever, hands each complete statement's source to the session,
// displays its value, renders its error with the caret, and leaves with
// the status of an exit the session reports. Interp is not used at all.
func TestRunThroughSession(t *testing.T) {
	f := &fakeSession{}
	var out, errs bytes.Buffer
	lr := &script{lines: []string{"[1,", "2]", "boom", "exit 4", "never"}}
	code := Run(context.Background(), lr, Config{Session: f, Stdout: &out, Stderr: &errs}, nil)
	if code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
	if want := []string{"[1,\n2]", "boom", "exit 4"}; strings.Join(f.srcs, "|") != strings.Join(want, "|") {
		t.Errorf("session ran %q, want %q", f.srcs, want)
	}
	if out.String() != "1\n" {
		t.Errorf("stdout %q", out.String())
	}
	if !strings.Contains(errs.String(), "error[type_error]: boom") || !strings.Contains(errs.String(), "^^^^") {
		t.Errorf("stderr %q", errs.String())
	}
}
