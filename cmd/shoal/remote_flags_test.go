package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestKernelFlag: `--kernel` takes the next word for its socket unless
// that word is a flag or an existing file that is not a socket; flags that
// take values are skipped whole, and nothing after the first operand or
// `--` is looked at.
func TestKernelFlag(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.shl")
	if err := os.WriteFile(script, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "k.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := []struct {
		args     []string
		rest     []string
		discover bool
	}{
		{[]string{"--kernel", "-c", "pwd"}, []string{"-c", "pwd"}, true},
		{[]string{"--kernel"}, []string{}, true},
		{[]string{"-kernel", "--session", "x"}, []string{"--session", "x"}, true},
		{[]string{"--kernel", script, "a"}, []string{script, "a"}, true},
		{[]string{"--kernel", sock, "-c", "1"}, []string{"--kernel", sock, "-c", "1"}, false},
		{[]string{"--kernel", "/no/such.sock"}, []string{"--kernel", "/no/such.sock"}, false},
		{[]string{"--kernel=" + sock}, []string{"--kernel=" + sock}, false},
		{[]string{"-c", "--kernel"}, []string{"-c", "--kernel"}, false},
		{[]string{"--token", "t", "--kernel"}, []string{"--token", "t"}, true},
		{[]string{script, "--kernel"}, []string{script, "--kernel"}, false},
		{[]string{"--", "--kernel"}, []string{"--", "--kernel"}, false},
	}
	for _, c := range cases {
		rest, discover := kernelFlag(c.args)
		if discover != c.discover || !slices.Equal(rest, c.rest) && !(len(rest) == 0 && len(c.rest) == 0) {
			t.Errorf("kernelFlag(%q) = %q, %v; want %q, %v", c.args, rest, discover, c.rest, c.discover)
		}
	}
}

// TestNeedsTerminal: programs that take over a terminal, anywhere in the
// source (a pipeline, a block, a path to them), are refused with
// no_terminal pointing at the command; everything else goes to the kernel.
func TestNeedsTerminal(t *testing.T) {
	for src, want := range map[string]bool{
		"vi notes.md":               true,
		"/usr/bin/vim x":            true,
		"ls; less g.txt":            true,
		"if true { top }":           true,
		"interact sh":               true,
		"echo vi":                   false,
		"ls":                        false,
		"git log --oneline":         false,
		`"vim"`:                     false,
		"let x = 1":                 false,
		"(":                         false, // the kernel reports the parse error
		"cat f; sleep 1ms; man ls":  true,
		"^sh -c 'echo less than 3'": false,
		"git commit":                true,
		"git commit -am wip":        false,
		"git commit --message=wip":  false,
		"git commit --no-edit":      false,
		"git rebase -i main":        true,
		"git rebase main":           false,
		"git status":                false,
	} {
		err := needsTerminal(src)
		var e *value.Error
		if got := errors.As(err, &e) && e.Code == "no_terminal"; got != want {
			t.Errorf("needsTerminal(%q) = %v, want refused %v", src, err, want)
		}
		if e != nil && (!e.HasPos || int(e.Span.End) > len(src)) {
			t.Errorf("needsTerminal(%q): span %v outside the source", src, e.Span)
		}
	}
}
