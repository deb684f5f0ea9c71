package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/pty"
)

// TestBytesOnAScreen: at the prompt, a text that ends with a newline (cat
// of a text file, a string literal) shows no blank line after it, and a
// program's output that does not end its line (`^printf a`) stays on the
// screen with a marker after it instead of being drawn over by the next
// prompt.
func TestBytesOnAScreen(t *testing.T) {
	bin := buildShoal(t)
	home, state, work := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"SHOAL_PROMPT_LEFT=shoal> ", "HOME=" + home, "XDG_STATE_HOME=" + state,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"), "INPUTRC=/dev/null"}
	r := startScreenREPL(t, bin, work, env)
	rows := func(s pty.Snapshot) []string {
		var out []string
		for _, row := range s.Screen {
			out = append(out, strings.TrimRight(row, " "))
		}
		return out
	}
	for _, tc := range []struct {
		line string
		want []string // the rows from the typed line to the next prompt
	}{
		{"cat a.txt", []string{"shoal> cat a.txt", "one", "two", "shoal>"}},
		{`"x\n"`, []string{`shoal> "x\n"`, "x", "shoal>"}},
		{"^printf a", []string{"shoal> ^printf a", "a%", "shoal>"}},
		{`^printf "b\n"`, []string{`shoal> ^printf "b\n"`, "b", "shoal>"}},
	} {
		r.send(tc.line + "\r")
		r.wait(tc.line+" and the next prompt", func(s pty.Snapshot) bool {
			got := rows(s)
			return len(got) >= len(tc.want) && strings.Join(got[:len(tc.want)], "\n") == strings.Join(tc.want, "\n")
		})
		r.clear()
	}
}
