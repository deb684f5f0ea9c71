package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/pty"
)

// TestAdaptedGitOnAScreen drives git through its adapter in the REPL as a
// git user would, in a real repository: Tab on `git sta` offers the
// adapter's subcommands status and stash, `git stat` completes to `git
// status`, which shows the branch line and the changes; `git add -p`, a
// form the adapter does not model, gets the terminal and stages a hunk;
// `git log --oneline` prints git's own lines.
func TestAdaptedGitOnAScreen(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	bin := buildShoal(t)
	home, state, work := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"SHOAL_PROMPT_LEFT=shoal> ", "HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + os.Getenv("PATH"), "INPUTRC=/dev/null", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_PAGER=cat", "LC_ALL=C.UTF-8"}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = work, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("add", "a.txt")
	git("commit", "-q", "-m", "first")
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startScreenREPL(t, bin, work, env)
	screen := func(s pty.Snapshot) string { return strings.Join(s.Screen, "\n") }

	// Tab on the first argument offers the adapter's subcommands.
	r.send("git sta\t")
	r.wait("status and stash offered for git sta", func(s pty.Snapshot) bool {
		text := screen(s)
		return strings.HasPrefix(s.Screen[0], "shoal> git sta") && strings.Contains(text, "status") && strings.Contains(text, "stash")
	})
	r.clear()

	// One candidate completes in place, and runs.
	r.send("git stat\t")
	r.wait("git stat completed to git status", func(s pty.Snapshot) bool { return strings.HasPrefix(s.Screen[0], "shoal> git status") })
	r.send("\r")
	r.waitRow("the branch line", func(row string) bool { return strings.HasPrefix(row, "On branch main") })
	r.waitRow("the modified file", func(row string) bool { return strings.Contains(row, "modified") && strings.Contains(row, "a.txt") })
	r.clear()

	// An interactive form passes through and gets the terminal.
	r.send("git add -p\r")
	r.waitRow("git's hunk prompt", func(row string) bool { return strings.Contains(row, "Stage this hunk") })
	r.send("y\r")
	r.waitRow("the next prompt", func(row string) bool { return strings.TrimSpace(row) == "shoal>" })
	r.clear()
	r.send("(git status).out.map(.status)\r")
	r.waitRow("the hunk staged", func(row string) bool { return strings.TrimSpace(row) == "0  M." })
	r.clear()

	// An output form the adapter does not model is git's own.
	r.send("git log --oneline\r")
	r.waitRow("git's one-line log", func(row string) bool {
		f := strings.Fields(row)
		return len(f) >= 2 && len(f[0]) >= 7 && strings.TrimSpace(strings.Join(f[len(f)-1:], "")) == "first"
	})
}
