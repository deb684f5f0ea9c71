package eval

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestDidYouMeanOffersOnlyRealHeads: a mistyped command head is offered a
// builtin, a callable binding or a program on PATH, never a data binding
// or a value function (which no command head can name).
func TestDidYouMeanOffersOnlyRealHeads(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"git", "lsx"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(bin, "gto"), 0o755); err != nil { // a directory is no program
		t.Fatal(err)
	}
	cases := []struct{ src, hint string }{
		{"gti status", "did you mean 'git'?"},
		{"lss", "did you mean 'ls'?"}, // the builtin, not the program lsx
		{"fn hello() { 1 }\nhelo", "did you mean 'hello'?"},
		{"alias deploy = echo hi\ndeplyo", "did you mean 'deploy'?"},
		{"let xyz = 3\nxyx 1", ""},
		{"asert true", ""},
		{"gtoo", ""},
		{"zzzzzzzz", ""},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: t.TempDir(),
				Env: []string{"PATH=" + bin + string(os.PathListSeparator) + "relative/dir", "HOME=/nonexistent"}, Stdout: io.Discard, Stderr: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			_, err = in.Eval(context.Background(), c.src)
			var e *value.Error
			if !errors.As(err, &e) || e.Code != codeNotFound {
				t.Fatalf("error %v, want not_found", err)
			}
			if c.hint == "" && strings.Contains(e.Hint, "did you mean") {
				t.Errorf("hint %q offers a head that does not exist", e.Hint)
			}
			if c.hint != "" && e.Hint != c.hint {
				t.Errorf("hint %q, want %q", e.Hint, c.hint)
			}
		})
	}
}
