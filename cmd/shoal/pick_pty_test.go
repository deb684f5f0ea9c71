package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/creack/pty"
)

// TestPickOnATerminal runs the built shoal on a pseudo terminal and picks
// from a list and a table the way a person would: the menu is numbered,
// a number chooses, several numbers choose several with multi: true, a bad
// answer is asked again, and an empty answer cancels with an error.
func TestPickOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "HOME="+t.TempDir(), "TERM=xterm", "SHOAL_PROMPT_LEFT=shoal> ")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}

	at := out.waitFor(t, 0, "shoal> ")
	send(`["ant", "bee", "cat"].pick(prompt: "animal> ").upper()` + "\r")
	at = out.waitFor(t, at, `2  "bee"`)
	at = out.waitFor(t, at, "animal> ")
	send("9\r") // out of range: said, and asked again
	at = out.waitFor(t, at, "not a number from 1 to 3")
	at = out.waitFor(t, at, "animal> ")
	send("2\r")
	at = out.waitFor(t, at, "BEE")
	at = out.waitForPrompt(t, at)

	send(`[{n: "a", v: 1}, {n: "b", v: 2}, {n: "c", v: 3}].pick(multi: true).map(.v).sum()` + "\r")
	at = out.waitFor(t, at, "pick> ")
	send("1, 3\r")
	at = out.waitFor(t, at, "4")
	at = out.waitForPrompt(t, at)

	send(`[1, 2].pick()` + "\r")
	at = out.waitFor(t, at, "pick> ")
	send("\r") // nothing chosen: an error, not a made-up choice
	at = out.waitFor(t, at, "pick cancelled")
	at = out.waitForPrompt(t, at)

	send("exit\r")
	_ = at
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shoal exited with %v; terminal:\n%s", err, out.String())
	}
}
