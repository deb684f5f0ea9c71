package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestREPLConfigAndHandlers runs the built shoal interactively on a
// pseudo-terminal: the session sees the user's configuration as config,
// and an on handler's echo reaches the terminal while the prompt waits.
func TestREPLConfigAndHandlers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "cfg")
	if err := os.MkdirAll(filepath.Join(cfg, "shoal"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "shoal", "shoal.toml"), []byte("[history]\nmax_entries = 4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"TERM=xterm", "PATH=" + os.Getenv("PATH")}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	for deadline := time.Now().Add(10 * time.Second); out.String() == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the REPL never drew a prompt")
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	send("config.history.max_entries + 1\r")
	at := out.waitFor(t, 0, "4243")
	send(`let h = on("user.builds", e => { echo "built {e.payload}" })` + "\r")
	send(`channel("user.builds").emit("x7")` + "\r")
	out.waitFor(t, at, "built x7")
	send("exit 0\r")
}
