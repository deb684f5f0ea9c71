package journal_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestLineHistory: without a journal, history lists the REPL's lines
// (--head, --limit), and refuses the journal's other filters.
func TestLineHistory(t *testing.T) {
	in, _ := session(t, host.NewOS(host.AllowAll), nil, nil)
	in.SetLineHistory(func() []string {
		return []string{"ls", "git status", "cd src", "git log -1", "history"}
	})
	cases := []struct{ src, want string }{
		{"(history).out", `[{n: 1, line: "ls"}, {n: 2, line: "git status"}, {n: 3, line: "cd src"}, {n: 4, line: "git log -1"}, {n: 5, line: "history"}]`},
		{"(history --head=git).out", `[{n: 2, line: "git status"}, {n: 4, line: "git log -1"}]`},
		{"(history --limit=2).out", `[{n: 4, line: "git log -1"}, {n: 5, line: "history"}]`},
	}
	for _, c := range cases {
		v, err := in.Eval(context.Background(), c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := value.Inline(v); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	_, err := in.Eval(context.Background(), "history --failed")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != value.CodeArg {
		t.Errorf("history --failed: %v, want arg_error", err)
	}
	// journal stays the kernel's.
	if _, err := in.Eval(context.Background(), "journal"); !errors.As(err, &e) || e.Code != value.CodeUnavailable {
		t.Errorf("journal without a journal: %v, want unavailable", err)
	}
}

// TestHistoryWithoutREPL: in -c and scripts there are no typed lines; the
// error says where history lives.
func TestHistoryWithoutREPL(t *testing.T) {
	in, _ := session(t, host.NewOS(host.AllowAll), nil, nil)
	_, err := in.Eval(context.Background(), "history")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != value.CodeUnavailable || !strings.Contains(e.Hint, "in the shoal REPL, history lists the lines you typed") {
		t.Errorf("history: %v (%v)", err, e)
	}
}
