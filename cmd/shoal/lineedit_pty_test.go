package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/pty"
)

// screenREPL is the REPL on an emulated terminal: what a person sees.
type screenREPL struct {
	t *testing.T
	s *pty.Session
}

// buildShoal builds the shoal command once per test.
func buildShoal(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startScreenREPL starts bin with no arguments on a 100x30 emulated
// terminal in dir, with env (HOME, XDG_* and PATH are the caller's).
func startScreenREPL(t *testing.T, bin, dir string, env []string) *screenREPL {
	t.Helper()
	s, err := pty.Open(pty.Options{Cols: 100, Rows: 30, Start: func(tty *os.File) (pty.Child, error) {
		cmd := exec.Command(bin)
		cmd.Dir = dir
		cmd.Env = append([]string{"TERM=xterm-256color"}, env...)
		pty.Attach(cmd, tty)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return screenChild{cmd}, nil
	}})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	r := &screenREPL{t: t, s: s}
	r.waitRow("the first prompt", func(row string) bool { return strings.HasPrefix(row, "shoal>") })
	return r
}

// send types text (control characters and escapes as they are).
func (r *screenREPL) send(text string) {
	r.t.Helper()
	in, _ := json.Marshal(text)
	if _, err := r.s.Send(in); err != nil {
		r.t.Fatalf("send %q: %v", text, err)
	}
}

func (r *screenREPL) snap() pty.Snapshot {
	return r.s.Read(context.Background(), pty.ReadOptions{Styles: true})
}

// wait waits until ok holds for the screen, and returns that screen.
func (r *screenREPL) wait(what string, ok func(pty.Snapshot) bool) pty.Snapshot {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		snap := r.snap()
		if ok(snap) {
			return snap
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the screen never showed %s; it shows:\n%s", what, strings.Join(snap.Screen, "\n"))
		}
	}
}

// waitRow waits for a row that ok accepts and returns its index.
func (r *screenREPL) waitRow(what string, ok func(row string) bool) int {
	r.t.Helper()
	at := -1
	r.wait(what, func(s pty.Snapshot) bool {
		for i, row := range s.Screen {
			if ok(row) {
				at = i
				return true
			}
		}
		return false
	})
	return at
}

// clear abandons the buffer (Ctrl-C: the first may only close a menu)
// and clears the screen (Ctrl-L).
func (r *screenREPL) clear() {
	r.t.Helper()
	for _, k := range []string{"\x03", "\x03", "\x0c"} {
		r.send(k)
		time.Sleep(50 * time.Millisecond)
	}
	r.wait("an empty prompt at the top", func(s pty.Snapshot) bool {
		return strings.TrimRight(s.Screen[0], " ") == "shoal>" && strings.TrimSpace(strings.Join(s.Screen[1:], "")) == ""
	})
}

func (r *screenREPL) count(text string) int {
	return strings.Count(strings.Join(r.snap().Screen, "\n"), text)
}

// TestLineEditorOnAScreen drives the REPL's line editor as a person
// would and checks what the screen shows at each step: colours while
// typing, Tab that keeps what was typed and completes programs on PATH and
// methods, a menu when candidates diverge, a bracketed paste run as one
// program, a multi-line entry kept whole, found whole by Ctrl-R without
// copies stacking, an autosuggestion from history, and the entry recalled
// whole after a restart.
func TestLineEditorOnAScreen(t *testing.T) {
	bin := buildShoal(t)
	home, state, work, pathDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(pathDir, "git"), []byte("#!/bin/sh\necho fake-git \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"my_notes.txt", "other"} {
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"SHOAL_PROMPT_LEFT=shoal> ", "HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + pathDir, "INPUTRC=/dev/null"}
	r := startScreenREPL(t, bin, work, env)

	// Colour while typing: at least two colours before Enter.
	r.send(`let x = "hi"`)
	r.wait("the typed line in two colours", func(s pty.Snapshot) bool {
		if !strings.HasPrefix(s.Screen[0], `shoal> let x = "hi"`) {
			return false
		}
		colours := map[any]bool{}
		for _, sp := range s.Styles[0] {
			if sp.Fg != nil {
				colours[sp.Fg] = true
			}
		}
		return len(colours) >= 2
	})
	r.send("\r")
	r.waitRow("the next prompt", func(row string) bool { return strings.TrimSpace(row) == "shoal>" })
	r.clear()

	// Tab keeps what was typed and offers echo.
	r.send("ec\t")
	r.wait("ec completed or offered, never erased", func(s pty.Snapshot) bool {
		return strings.HasPrefix(s.Screen[0], "shoal> ec") && strings.Contains(strings.Join(s.Screen, "\n"), "echo")
	})
	r.clear()

	// A program on PATH completes.
	r.send("gi\t")
	r.wait("gi completed to git", func(s pty.Snapshot) bool { return strings.HasPrefix(s.Screen[0], "shoal> git") })
	r.send(" status\r")
	r.waitRow("the fake git's output", func(row string) bool { return strings.HasPrefix(row, "fake-git status") })
	r.clear()

	// A method: the shared prefix is inserted, the rest offered in a menu.
	r.send("[1,2].so\t")
	snap := r.wait("[1,2].so completed towards sort, with a menu", func(s pty.Snapshot) bool {
		screen := strings.Join(s.Screen, "\n")
		return strings.HasPrefix(s.Screen[0], "shoal> [1,2].sort") && strings.Contains(screen, "sort_by")
	})
	if !strings.HasPrefix(snap.Screen[0], "shoal> [1,2].so") {
		t.Fatalf("Tab erased typed text: %q", snap.Screen[0])
	}
	r.clear()

	// A path argument keeps the typed part.
	r.send("ls my\t")
	r.wait("ls my completed to the file", func(s pty.Snapshot) bool { return strings.HasPrefix(s.Screen[0], "shoal> ls my_notes.txt") })
	r.clear()

	// A bracketed paste is one program: a line starting with `.`
	// continues the one before.
	r.send("\x1b[200~[3,1,2]\r  .sort()\x1b[201~")
	r.wait("the pasted lines in the buffer", func(s pty.Snapshot) bool {
		return strings.HasPrefix(s.Screen[0], "shoal> [3,1,2]") && strings.Contains(s.Screen[1], ".sort()")
	})
	r.send("\r")
	snap = r.wait("1 2 3 on three lines", func(s pty.Snapshot) bool {
		return strings.TrimSpace(s.Screen[2]) == "0  1" && strings.TrimSpace(s.Screen[3]) == "1  2" && strings.TrimSpace(s.Screen[4]) == "2  3"
	})
	if strings.Contains(strings.Join(snap.Screen, "\n"), "error") {
		t.Fatalf("the paste ran line by line:\n%s", strings.Join(snap.Screen, "\n"))
	}
	r.clear()

	// Enter on an incomplete statement continues the same buffer.
	r.send("fn greet(n) {\r")
	r.wait("a continuation line", func(s pty.Snapshot) bool { return strings.Contains(s.Screen[1], "...") })
	r.send(`  "hi {n}"` + "\r")
	r.send("}\r")
	r.waitRow("the prompt after the fn", func(row string) bool { return strings.TrimSpace(row) == "shoal>" })
	r.send(`greet("bob")` + "\r")
	r.waitRow("greet's answer", func(row string) bool { return strings.TrimSpace(row) == "hi bob" })
	r.clear()

	// Ctrl-R finds the multi-line entry whole; typing more does not stack
	// copies of it.
	r.send("\x12")
	for _, c := range "fn gre" {
		r.send(string(c))
		time.Sleep(30 * time.Millisecond)
	}
	r.wait("the fn found whole", func(s pty.Snapshot) bool {
		return strings.HasPrefix(s.Screen[0], "shoal> fn greet(n) {") && strings.Contains(s.Screen[1], `"hi {n}"`) && strings.Contains(s.Screen[2], "}")
	})
	if n := r.count("fn greet(n) {"); n > 2 { // the buffer, and the search menu's entry
		t.Fatalf("Ctrl-R stacked %d copies:\n%s", n, strings.Join(r.snap().Screen, "\n"))
	}
	r.send("\x07") // Ctrl-G leaves the search
	r.clear()

	// An autosuggestion from history, dimmed after the cursor; Right
	// takes it.
	r.send("gre")
	// The suggestion is drawn, then the cursor put back: wait for both,
	// as a snapshot can fall between the two writes.
	r.wait("greet suggested, the cursor after gre", func(s pty.Snapshot) bool {
		return strings.HasPrefix(s.Screen[0], `shoal> greet("bob")`) && s.Cursor.Col == len("shoal> gre")
	})
	r.send("\x1b[C\r")
	r.waitRow("the suggested greet run", func(row string) bool { return strings.TrimSpace(row) == "hi bob" })
	r.clear()

	r.send("exit\r")
	select {
	case <-r.s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("shoal did not exit")
	}

	// After a restart the multi-line entry comes back as one.
	hist := filepath.Join(state, "shoal", "history")
	if fi, err := os.Stat(hist); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v %v", fi, err)
	}
	r = startScreenREPL(t, bin, work, env)
	r.send("\x1b[A") // Up: exit
	r.wait("exit recalled", func(s pty.Snapshot) bool { return strings.HasPrefix(s.Screen[0], "shoal> exit") })
	r.send("\x1b[A\x1b[A") // greet("bob") (once: the same twice is kept once), then the fn
	r.wait("the fn recalled whole", func(s pty.Snapshot) bool {
		return strings.HasPrefix(s.Screen[0], "shoal> fn greet(n) {") && strings.Contains(s.Screen[1], `"hi {n}"`) && strings.Contains(s.Screen[2], "}")
	})
}

// TestLineEditorReadsLinerHistory: a history file liner wrote (one entry
// per line) is read, and the first new entry keeps the old ones.
func TestLineEditorReadsLinerHistory(t *testing.T) {
	bin := buildShoal(t)
	home, state := t.TempDir(), t.TempDir()
	hist := filepath.Join(state, "shoal", "history")
	if err := os.MkdirAll(filepath.Dir(hist), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hist, []byte("40 + 2\n[5, 6].len()\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SHOAL_PROMPT_LEFT=shoal> ", "HOME=" + home, "XDG_STATE_HOME=" + state, "PATH=/usr/bin:/bin", "INPUTRC=/dev/null", "NO_COLOR=1"}
	r := startScreenREPL(t, bin, t.TempDir(), env)
	r.send("\x1b[A")
	r.wait("the newest old entry", func(s pty.Snapshot) bool { return strings.HasPrefix(s.Screen[0], "shoal> [5, 6].len()") })
	r.send("\x1b[A\r")
	r.waitRow("its value", func(row string) bool { return strings.TrimSpace(row) == "42" })
	// NO_COLOR: the buffer is typed without colour.
	r.send("let y = 1")
	snap := r.wait("the typed line", func(s pty.Snapshot) bool {
		return strings.Contains(s.Screen[s.Cursor.Row], "let y = 1")
	})
	for _, sp := range snap.Styles[snap.Cursor.Row] {
		if sp.Fg != nil {
			t.Fatalf("NO_COLOR, yet the line is coloured: %+v", snap.Styles[snap.Cursor.Row])
		}
	}
	r.send("\x03")
	time.Sleep(50 * time.Millisecond)
	r.send("exit\r")
	select {
	case <-r.s.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("shoal did not exit:\n%s", strings.Join(r.snap().Screen, "\n"))
	}
	data, _ := os.ReadFile(hist)
	if !strings.HasPrefix(string(data), "#shoal-history v1\n") || !strings.Contains(string(data), `"[5, 6].len()"`) || !strings.Contains(string(data), `"40 + 2"`) {
		t.Fatalf("history after the session: %q", data)
	}
}
