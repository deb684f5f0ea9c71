package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/pty"
)

// userTerminal is a person at a terminal running the built shoal: what
// they type goes in as keys, and what they see is the rendered screen of
// a terminal emulator (internal/pty), colours included.
type userTerminal struct {
	t *testing.T
	s *pty.Session
}

// startUserTerminal builds shoal and starts it with no arguments on an
// 100x30 terminal in dir, with a private home, config and state, and a
// PATH of the programs the session uses linked into one directory (so
// which commands start with "gi" is known).
func startUserTerminal(t *testing.T, dir string) *userTerminal {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pathDir := t.TempDir()
	for _, prog := range []string{"git", "sh", "sleep", "less", "cat"} {
		real, err := exec.LookPath(prog)
		if err != nil {
			t.Skipf("%s is not installed", prog)
		}
		if err := os.Symlink(real, filepath.Join(pathDir, prog)); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	env := []string{
		"TERM=xterm-256color", "PATH=" + pathDir, "HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PAGER=less",
	}
	s, err := pty.Open(pty.Options{Cols: 100, Rows: 30, Start: func(tty *os.File) (pty.Child, error) {
		cmd := exec.Command(bin)
		cmd.Dir, cmd.Env = dir, env
		pty.Attach(cmd, tty)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return screenChild{cmd}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &userTerminal{t: t, s: s}
}

// send types text (control characters and escape sequences included),
// a moment after the screen last changed, as a person would.
func (u *userTerminal) send(text string) {
	u.t.Helper()
	time.Sleep(100 * time.Millisecond)
	raw, _ := json.Marshal(text)
	if _, err := u.s.Send(raw); err != nil {
		u.t.Fatalf("typing %q: %v", text, err)
	}
}

// screen is what the terminal shows now, and the lines that scrolled off.
func (u *userTerminal) screen() pty.Snapshot {
	return u.s.Read(context.Background(), pty.ReadOptions{Styles: true, Scrollback: 200})
}

// waitFor waits until cond holds for what the terminal shows and returns
// that screen. When it never does, the test fails with the screen shown
// and what names the wait, and ok is false.
func (u *userTerminal) waitFor(what string, cond func(pty.Snapshot) bool) (snap pty.Snapshot, ok bool) {
	u.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap = u.screen()
		if cond(snap) {
			return snap, true
		}
		if !snap.Alive {
			u.t.Fatalf("shoal exited while waiting for %s; the terminal shows:\n%s", what, shown(snap))
		}
		if time.Now().After(deadline) {
			u.t.Errorf("the terminal never showed %s; it shows:\n%s", what, shown(snap))
			return snap, false
		}
		u.s.Read(context.Background(), pty.ReadOptions{Wait: 100 * time.Millisecond})
	}
}

// shown is a screen as text for a failure message.
func shown(s pty.Snapshot) string {
	var b strings.Builder
	for i, row := range s.Screen {
		fmt.Fprintf(&b, "%2d|%s\n", i, strings.TrimRight(row, " "))
	}
	return b.String()
}

// cursorRow is the text of the row the cursor is on.
func cursorRow(s pty.Snapshot) string {
	if s.Cursor.Row < 0 || s.Cursor.Row >= len(s.Screen) {
		return ""
	}
	return s.Screen[s.Cursor.Row]
}

// all is the scrollback and screen as one text.
func all(s pty.Snapshot) string {
	return strings.Join(s.Scrollback, "\n") + "\n" + strings.Join(s.Screen, "\n")
}

// fgColours counts the distinct foreground colours on row y.
func fgColours(s pty.Snapshot, y int) int {
	seen := map[string]bool{}
	if y < 0 || y >= len(s.Styles) {
		return 0
	}
	for _, sp := range s.Styles[y] {
		if sp.Fg != nil {
			seen[fmt.Sprint(sp.Fg)] = true
		}
	}
	return len(seen)
}

// TestTerminalAcceptance is issue 14's first acceptance point: a person
// at a terminal, checked at each step by what the screen shows. A step
// that fails is reported and abandoned with Ctrl-C, and the next goes on.
func TestTerminalAcceptance(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	dir := filepath.Join(t.TempDir(), "tidepool")
	if err := os.MkdirAll(filepath.Join(dir, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(dir, "many", fmt.Sprintf("file_%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := startUserTerminal(t, dir)
	// onPrompt: the cursor is on a prompt holding the directory's name
	// with nothing typed after it yet.
	onPrompt := func(s pty.Snapshot) bool {
		row := strings.TrimRight(cursorRow(s), " ")
		return strings.Contains(row, "tidepool") && strings.HasSuffix(row, ">")
	}
	// after is what the terminal shows after the last echo of the typed
	// command cmd.
	after := func(s pty.Snapshot, cmd string) (string, bool) {
		text := all(s)
		i := strings.LastIndex(text, "> "+cmd)
		if i < 0 {
			return "", false
		}
		return text[i+2+len(cmd):], true
	}
	atPrompt := func(what string) (pty.Snapshot, bool) {
		t.Helper()
		return u.waitFor(what+" (a prompt holding the directory's name)", onPrompt)
	}
	// recover abandons a failed step: q for a pager, Ctrl-C for the line
	// or the running statement, until a prompt shows.
	recover := func() {
		t.Helper()
		if !onPrompt(u.screen()) {
			u.send("q") // a pager
			time.Sleep(200 * time.Millisecond)
		}
		u.send("\x03")
		atPrompt("a prompt after abandoning a step")
	}
	if _, ok := atPrompt("the first prompt"); !ok {
		t.FailNow()
	}
	steps := []struct {
		name string
		run  func() bool
	}{
		{"Tab on ec keeps ec and offers echo", func() bool {
			u.send("ec")
			if _, ok := u.waitFor("the typed ec", func(s pty.Snapshot) bool { return strings.HasSuffix(strings.TrimRight(cursorRow(s), " "), "ec") }); !ok {
				return false
			}
			u.send("\t")
			_, ok := u.waitFor("ec kept and echo offered", func(s pty.Snapshot) bool {
				return strings.Contains(strings.Join(s.Screen, "\n"), "echo") && strings.Contains(cursorRow(s), "ec")
			})
			return ok
		}},
		{"gi completes to git", func() bool {
			u.send("gi\t")
			_, ok := u.waitFor("gi completed to git", func(s pty.Snapshot) bool { return strings.Contains(cursorRow(s), "git") })
			return ok
		}},
		{"colours while typing", func() bool {
			u.send(`let x = "hi"`)
			_, ok := u.waitFor("the typed let in at least two colours", func(s pty.Snapshot) bool {
				return strings.Contains(cursorRow(s), `let x = "hi"`) && fgColours(s, s.Cursor.Row) >= 2
			})
			return ok
		}},
		{"help lists ls", func() bool {
			u.send("help\r")
			_, ok := u.waitFor("help listing ls", func(s pty.Snapshot) bool {
				rest, ok := after(s, "help")
				return ok && regexp.MustCompile(`\n  .*\bls\b`).MatchString(rest) && onPrompt(s)
			})
			return ok
		}},
		{"a 150-row ls is paged or summarised with its header", func() bool {
			u.send("ls many\r")
			snap, ok := u.waitFor("ls of 150 files paged or summarised, header in sight", func(s pty.Snapshot) bool {
				// The header must be on the screen, not scrolled away.
				text := strings.Join(s.Screen, "\n")
				header := strings.Contains(text, "name") && strings.Contains(text, "modified")
				last := strings.TrimSpace(s.Screen[len(s.Screen)-1])
				paged := header && (last == ":" || strings.Contains(last, "(END)") || strings.HasPrefix(last, "lines "))
				rest, _ := after(s, "ls many")
				summarised := header && strings.Contains(rest, "(150 total)") && onPrompt(s)
				return paged || summarised
			})
			if ok && !onPrompt(snap) {
				u.send("q") // leave the pager
			}
			return ok
		}},
		{"Ctrl-C of sleep 30s returns within 2 s, quietly", func() bool {
			u.send("sleep 30s\r")
			time.Sleep(300 * time.Millisecond)
			start := time.Now()
			u.send("\x03")
			snap, ok := atPrompt("the prompt after Ctrl-C")
			if took := time.Since(start); ok && took > 2*time.Second {
				t.Errorf("Ctrl-C of sleep 30s took %v to give the prompt back", took)
				return false
			}
			if strings.Contains(all(snap), "context canceled") {
				t.Errorf("an interrupt printed context canceled:\n%s", shown(snap))
				return false
			}
			return ok
		}},
		{"a pasted [3,1,2] and .sort() on its own line print 1 2 3", func() bool {
			u.send("\x1b[200~[3,1,2]\n  .sort()\x1b[201~\r")
			_, ok := u.waitFor("the pasted sort printing 1 2 3", func(s pty.Snapshot) bool {
				rest, ok := after(s, "[3,1,2]")
				if !ok || !strings.Contains(rest, ".sort()") {
					return false
				}
				one, two, three := strings.Index(rest, "\n0  1"), strings.Index(rest, "\n1  2"), strings.Index(rest, "\n2  3")
				return one > 0 && two > one && three > two && onPrompt(s)
			})
			return ok
		}},
		{"sleep 20s & then jobs lists one job", func() bool {
			u.send("sleep 20s &\r")
			if _, ok := u.waitFor("the prompt after starting a job", func(s pty.Snapshot) bool {
				_, echoed := after(s, "sleep 20s &")
				return echoed && onPrompt(s)
			}); !ok {
				return false
			}
			u.send("jobs\r")
			snap, ok := u.waitFor("jobs listing the sleep", func(s pty.Snapshot) bool {
				rest, ok := after(s, "jobs")
				return ok && strings.Contains(rest, "sleep") && onPrompt(s)
			})
			if !ok {
				return false
			}
			rest, _ := after(snap, "jobs")
			if n := strings.Count(rest, "sleep 20s"); n != 1 {
				t.Errorf("jobs listed %d sleep jobs, want 1:\n%s", n, shown(snap))
				return false
			}
			return true
		}},
	}
	for _, st := range steps {
		if !st.run() {
			t.Errorf("step failed: %s", st.name)
			recover()
			continue
		}
		// Leave the line empty for the next step.
		u.send("\x03")
		atPrompt("a prompt after: " + st.name)
	}
	u.send("exit\r")
	select {
	case <-u.s.Done():
	case <-time.After(10 * time.Second):
		t.Errorf("exit did not end shoal")
	}
}
