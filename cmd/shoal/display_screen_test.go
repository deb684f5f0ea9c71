package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/pty"
)

// TestTallLsOnTheScreen looks at the rendered screen (internal/pty's
// emulator) of a 100x30 terminal after `ls` of 150 files: what a person
// sees is the header on the top row, its rule, the first rows, the count
// line and the prompt on the bottom row.
func TestTallLsOnTheScreen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	s, err := pty.Open(pty.Options{Cols: 100, Rows: 30, Start: func(tty *os.File) (pty.Child, error) {
		cmd := exec.Command(bin)
		cmd.Dir = dir
		cmd.Env = []string{"TERM=xterm-256color", "PATH=/usr/bin:/bin", "HOME=" + home,
			"XDG_STATE_HOME=" + home, "XDG_CONFIG_HOME=" + home, "PAGER=", "SHOAL_PROMPT_LEFT=shoal> "}
		pty.Attach(cmd, tty)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return screenChild{cmd}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	screen := func(what string, cond func([]string) bool) []string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			snap := s.Read(context.Background(), pty.ReadOptions{Wait: 200 * time.Millisecond})
			if cond(snap.Screen) {
				return snap.Screen
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the screen never showed it:\n%s", what, strings.Join(snap.Screen, "\n"))
			}
		}
	}
	has := func(sub string) func([]string) bool {
		return func(rows []string) bool { return strings.Contains(strings.Join(rows, "\n"), sub) }
	}
	send := func(text string) {
		t.Helper()
		b, _ := json.Marshal(text)
		if _, err := s.Send(b); err != nil {
			t.Fatal(err)
		}
	}
	screen("the prompt", has("shoal>"))
	send("ls\r")
	rows := screen("the count line and the prompt", func(rows []string) bool {
		return has("… 127 more rows (150 total)")(rows) && strings.HasPrefix(rows[26], "shoal>")
	})
	if f := strings.Fields(rows[0]); strings.Join(f, " ") != "path type size modified" {
		t.Errorf("top row %q, want the header path type size modified:\n%s", rows[0], strings.Join(rows, "\n"))
	}
	if !strings.HasPrefix(rows[1], "─") {
		t.Errorf("second row %q, want the header's rule", rows[1])
	}
	if f := strings.Fields(rows[2]); len(f) == 0 || f[0] != "file_0" {
		t.Errorf("third row %q, want file_0", rows[2])
	}
	// The editor keeps lineedit.ReserveRows free below the prompt.
	if f := strings.Fields(rows[24]); len(f) == 0 || f[0] != "file_22" {
		t.Errorf("row 25 %q, want file_22", rows[24])
	}
	if strings.TrimSpace(rows[25]) != "… 127 more rows (150 total)" {
		t.Errorf("row 26 %q, want the count line", rows[25])
	}
	send("exit 0\r")
	select {
	case <-s.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("shoal did not exit")
	}
}
