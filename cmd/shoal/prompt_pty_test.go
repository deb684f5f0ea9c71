package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// startPTY builds shoal and runs it with no arguments on a pseudo-terminal
// in dir, with HOME and the XDG directories under temp dirs (home, config),
// and returns the output collector and a function that types.
func startPTY(t *testing.T, dir, home, config string, env ...string) (*ptyOutput, func(string), *exec.Cmd) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+config, "XDG_STATE_HOME="+t.TempDir(),
		"TERM=xterm", "NO_COLOR=", "SHOAL_PROMPT_LEFT=", "SSH_CONNECTION=", "SSH_TTY=")
	cmd.Env = append(cmd.Env, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
	})
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	return out, func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}, cmd
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPromptOnATerminal: the default prompt shows the directory under
// home as ~/..., the git branch read from .git/HEAD, and the last status
// only when it was not zero; cd changes it.
func TestPromptOnATerminal(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "proj")
	mustWrite(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/feature-x\n")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, send, _ := startPTY(t, proj, home, t.TempDir())

	at := out.waitFor(t, 0, "~/src/proj (feature-x) > ")
	send("1 / 0\r")
	at = out.waitFor(t, at, "div_zero")
	at = out.waitFor(t, at, "~/src/proj (feature-x) [1] > ")
	send("cd sub\r")
	at = out.waitFor(t, at, "~/src/proj/sub (feature-x) > ")
	send("cd ~\r")
	at = out.waitFor(t, at, "~ > ") // home: no path after ~
	send("^sh -c 'exit 7'\r")
	out.waitFor(t, at, "~ [7] > ")
}

// TestConfigFileOnATerminal: prompt.toml sets the prompt; a bad
// shoal.toml is reported with its line and column and the REPL still
// starts without it (prompt.toml still applies), saying so; an unknown key warns with a
// suggestion and the rest of the file applies.
func TestConfigFileOnATerminal(t *testing.T) {
	home, config := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(config, "shoal", "prompt.toml"), "[format]\nleft = \"<$directory|$exit_status>$ \"\n[module.directory]\nformat = \"$path\"\n[module.exit_status]\nformat = \"$status\"\n")
	dir := filepath.Join(home, "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, send, _ := startPTY(t, dir, home, config)
	at := out.waitFor(t, 0, "<~/work|>$ ")
	send("1 / 0\r")
	out.waitFor(t, at, "<~/work|1>$ ")

	mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), "[history]\nmax_entris = 5\n\n[editor]\nmode = \"nano\"\n")
	out, _, _ = startPTY(t, dir, home, config)
	at = out.waitFor(t, 0, "shoal.toml:5:1: editor.mode: must be `emacs` or `vi`")
	at = out.waitFor(t, at, "left out: the REPL starts without it")
	out.waitFor(t, at, "<~/work|>$ ") // only shoal.toml is left out: prompt.toml still applies

	mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), "[history]\nmax_entris = 5\n")
	out, _, _ = startPTY(t, dir, home, config)
	at = out.waitFor(t, 0, "shoal.toml:2:1: unknown config key `history.max_entris` (did you mean `history.max_entries`?)")
	out.waitFor(t, at, "<~/work|>$ ")
	if strings.Contains(out.String(), "\x1b[") && strings.Contains(out.String(), "<\x1b") {
		t.Errorf("prompt coloured although the editor does not measure escapes")
	}
}

// TestDiagnosticsColouredOnATerminal: an error on a terminal is coloured,
// the same error through a pipe is plain.
func TestDiagnosticsColouredOnATerminal(t *testing.T) {
	home := t.TempDir()
	out, send, _ := startPTY(t, home, home, t.TempDir())
	at := out.waitFor(t, 0, "~ > ")
	send("1 + \"a\"\r")
	out.waitFor(t, at, "\x1b[1;31merror[type_error]:\x1b[0m")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "\x1b[1;31m^") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "\x1b[1;31m^") {
		t.Errorf("carets not coloured: %q", out.String())
	}
}

// TestHelpAndSuggestionsOnATerminal: help lists ls, NAME --help describes
// a builtin, and a mistyped program is offered the one on PATH.
func TestHelpAndSuggestionsOnATerminal(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(bin, "git"), "#!/bin/sh\necho fake-git \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, send, _ := startPTY(t, home, home, t.TempDir(), "PATH="+bin+":/usr/bin:/bin")
	at := out.waitFor(t, 0, "~ > ")
	send("help\r")
	at = out.waitFor(t, at, "Builtin commands")
	at = out.waitFor(t, at, "  ls ")
	at = out.waitFor(t, at, "~ > ")
	send("ls --help\r")
	at = out.waitFor(t, at, "usage: ls [-a] [PATH...]")
	at = out.waitFor(t, at, "-a, --all")
	at = out.waitFor(t, at, "~ > ")
	send("gti status\r")
	at = out.waitFor(t, at, "command not found: gti")
	at = out.waitFor(t, at, "did you mean 'git'?")
	at = out.waitFor(t, at, "~ [1] > ")
	send("git status\r")
	out.waitFor(t, at, "fake-git status")
}

// TestConfigStartsTheSession: [aliases], [env] and [init] files apply to
// the interactive session; a broken alias is reported and the rest apply.
func TestConfigStartsTheSession(t *testing.T) {
	home, config := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(home, "init.shl"), "let greeting = \"hi-from-init\"\n")
	mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), `[aliases]
gs = "echo aliased"
bad = "echo a\nrm -r x"

[env]
SHOAL_TEST_X = "from-config"

[init]
files = ["~/init.shl"]
`)
	out, send, _ := startPTY(t, home, home, config)
	at := out.waitFor(t, 0, "aliases.bad")
	at = out.waitFor(t, at, "~ > ")
	send("gs word\r")
	at = out.waitFor(t, at, "aliased word")
	at = out.waitFor(t, at, "~ > ")
	send("env SHOAL_TEST_X\r")
	at = out.waitFor(t, at, "from-config")
	at = out.waitFor(t, at, "~ > ")
	send("greeting\r")
	out.waitFor(t, at, "hi-from-init")
}
