package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/pty"
)

// TestShellHabitsEndToEnd: through the built shoal, a POSIX-shell habit
// fails with its Shoal spelling in the hint (shoal -c), and in the REPL on
// a terminal the same hint shows and `history` lists the lines typed.
func TestShellHabitsEndToEnd(t *testing.T) {
	bin := buildShoal(t)
	home, state := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"PATH=/usr/bin:/bin", "NO_COLOR=1"}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ src, hint string }{
		{`export FOO=bar`, `hint: write env.FOO = "bar"`},
		{`FOO=bar`, `hint: ` + "`FOO=bar`" + ` is POSIX shell: write let FOO = "bar", or env.FOO = "bar"`},
		{`alias ll='ls -la'`, `hint: write alias ll = ls -la`},
		{`for f in *.txt; do echo $f; done`, `hint: write for f in glob("*.txt") { ... }`},
		{`[ -f notes.txt ]`, `hint: write path("notes.txt").is_file()`},
		{`echo $(pwd)`, `hint: write (pwd)`},
		{`echo $HOME`, "env.HOME"},
		{`ls missing 2>/dev/null`, `try { ls missing } catch err { }`},
		{`cat notes.txt | wc -l`, `(cat notes.txt).feed(^wc -l)`},
		{`ls -lt`, `run("ls", "-lt")`},
		{`history`, `in the shoal REPL, history lists the lines you typed`},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, "-c", c.src)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil {
			t.Errorf("shoal -c %q succeeded, want a failure with a hint", c.src)
			continue
		}
		if !strings.Contains(stderr.String(), c.hint) {
			t.Errorf("shoal -c %q: stderr lacks %q:\n%s", c.src, c.hint, stderr.String())
		}
	}

	// The REPL: the hint on the screen, and history.
	r := startScreenREPL(t, bin, dir, append(env, "SHOAL_PROMPT_LEFT=shoal> ", "INPUTRC=/dev/null"))
	r.send("export FOO=bar\r")
	r.waitRow("the export hint", func(row string) bool { return strings.Contains(row, `env.FOO = "bar"`) })
	r.send("[40, 2].sum()\r")
	r.waitRow("the sum", func(row string) bool { return strings.TrimSpace(row) == "42" })
	r.send("history\r")
	snap := r.wait("the typed lines in history", func(s pty.Snapshot) bool {
		screen := strings.Join(s.Screen, "\n")
		return strings.Contains(screen, "[40, 2].sum()") && strings.Count(screen, "export FOO=bar") >= 2 &&
			strings.Contains(screen, "line")
	})
	if strings.Contains(strings.Join(snap.Screen, "\n"), "no journal") {
		t.Fatalf("history in the standalone REPL asked for a journal:\n%s", strings.Join(snap.Screen, "\n"))
	}
	r.send("exit\r")
	select {
	case <-r.s.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("shoal did not exit:\n%s", strings.Join(r.snap().Screen, "\n"))
	}
}
