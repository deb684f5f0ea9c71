package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyOutput collects what the REPL writes to its terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (p *ptyOutput) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *ptyOutput) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// waitFor waits until the terminal output after offset from contains s,
// and returns the offset past it.
func (p *ptyOutput) waitFor(t *testing.T, from int, s string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := p.String()
		if i := strings.Index(out[from:], s); i >= 0 {
			return from + i + len(s)
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %q; it shows:\n%s", s, out[from:])
		}
	}
}

// TestREPLOnATerminal runs the built shoal with no arguments on a pseudo
// terminal, as a person would: values print, a statement continues over
// lines, Ctrl-C abandons a line and stops a running statement, a bad line
// shows a caret, `exit 7` leaves with status 7, and the history file is
// written privately.
func TestREPLOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	state := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "TERM=xterm",
		"XDG_CONFIG_HOME="+t.TempDir(), "SHOAL_PROMPT_LEFT=shoal> ")
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
	send("20 + 22\r")
	at = out.waitFor(t, at, "42")
	at = out.waitForPrompt(t, at)

	send("let xs = [3,\r")
	at = out.waitFor(t, at, "... ")
	send("1, 2]\r")
	at = out.waitForPrompt(t, at)
	send("xs.sort().len()\r")
	at = out.waitFor(t, at, "3")
	at = out.waitForPrompt(t, at)

	send("let abandoned = 1\x03") // Ctrl-C on a half-typed line
	at = out.waitForPrompt(t, at)
	send("1 | 2\r")
	at = out.waitFor(t, at, "^")
	at = out.waitForPrompt(t, at)

	send("sleep 30s\r")
	time.Sleep(300 * time.Millisecond)
	send("\x03") // Ctrl-C while it runs: the statement stops, the REPL stays
	// One quiet line, not a diagnostic (issue 14: no "context canceled").
	at = out.waitFor(t, at, "^C interrupted")
	at = out.waitForPrompt(t, at)
	if seen := out.String(); strings.Contains(seen, "context canceled") || strings.Contains(seen, "error[cancelled]") {
		t.Errorf("an interrupt printed a diagnostic: %q", seen)
	}
	send("abandoned\r") // never defined: the Ctrl-C'd line did not run
	at = out.waitFor(t, at, "command not found: abandoned")
	out.waitForPrompt(t, at)

	// A command in statement position gets the terminal: it reads what is
	// typed and sees the window size; the REPL edits lines again after.
	send(`sh -c "read x; echo got-$x; stty size"` + "\r")
	time.Sleep(300 * time.Millisecond)
	send("typed\r")
	at = out.waitFor(t, at, "got-typed")
	at = out.waitFor(t, at, "40 100")
	at = out.waitForPrompt(t, at)
	// interact gets the terminal even in value position, flags and all.
	send(`(interact sh -c "read y; echo it-$y $1; exit 3" sh --verbatim).status` + "\r")
	time.Sleep(300 * time.Millisecond)
	send("ok\r")
	at = out.waitFor(t, at, "it-ok --verbatim")
	at = out.waitFor(t, at, "3")
	at = out.waitForPrompt(t, at)

	// Ctrl-C reaches a foreground command, not the REPL.
	send("sh -c \"sleep 30\"\r")
	time.Sleep(300 * time.Millisecond)
	send("\x03")
	at = out.waitFor(t, at, "SIGINT")
	at = out.waitForPrompt(t, at)
	send("[1, 2].len()\r")
	at = out.waitFor(t, at, "2")
	out.waitForPrompt(t, at)

	send("exit 7\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 7 {
			t.Fatalf("exit: %v, want status 7", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("shoal did not exit")
	}
	hist := filepath.Join(state, "shoal", "history")
	fi, err := os.Stat(hist)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(hist)
	if !strings.Contains(string(data), "20 + 22") || !strings.Contains(string(data), "exit 7") {
		t.Errorf("history %q", data)
	}
}
