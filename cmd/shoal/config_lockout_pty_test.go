package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/pty"
)

// startConfigScreen starts bin on a 120x30 emulated terminal in dir with
// HOME=home and XDG_CONFIG_HOME=config (state in a temp dir), and waits
// until a row shows first.
func startConfigScreen(t *testing.T, bin, dir, home, config, first string, env ...string) *screenREPL {
	t.Helper()
	s, err := pty.Open(pty.Options{Cols: 120, Rows: 30, Start: func(tty *os.File) (pty.Child, error) {
		cmd := exec.Command(bin)
		cmd.Dir = dir
		cmd.Env = append([]string{"TERM=xterm-256color", "HOME=" + home, "XDG_CONFIG_HOME=" + config,
			"XDG_STATE_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "USER=tester"}, env...)
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
	r.waitRow(first, func(row string) bool { return strings.Contains(row, strings.TrimSpace(first)) })
	return r
}

// screenText is the whole screen, its wrapped rows joined back.
func (r *screenREPL) screenText() string {
	var b strings.Builder
	for _, row := range r.snap().Screen {
		b.WriteString(strings.TrimRight(row, " "))
		if len(strings.TrimRight(row, " ")) < 120 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestConfigNeverLocksOut (H3): a malformed or wrongly typed shoal.toml or
// prompt.toml does not keep the REPL from starting: it starts with one
// warning naming file:line:col and what is wrong, leaves that file out
// (the other file still applies), and the prompt works.
func TestConfigNeverLocksOut(t *testing.T) {
	bin := buildShoal(t)
	cases := []struct {
		name, main, prompt string
		warn               string // the one warning, after the config dir
		prompt1            string // the prompt then shown
	}{
		{"malformed shoal.toml", "[prompt\nfoo = 1\n", "",
			"shoal/shoal.toml:1:8: expected ']' to close table name", "~ > "},
		{"malformed shoal.toml, good prompt.toml", "version = 1\n[history\n", "[format]\nleft = \"ok$character\"\n",
			"shoal/shoal.toml:2:9: expected ']' to close table name", "ok> "},
		{"shoal.toml of the wrong type", "[history]\nmax_entries = \"many\"\n", "",
			"shoal/shoal.toml:2:15: history.max_entries: expected an integer, found string", "~ > "},
		{"malformed prompt.toml, good shoal.toml", "[prompt.format]\nleft = \"main$character\"\n", "[format\nleft = 1\n",
			"shoal/prompt.toml:1:8: expected ']' to close table name", "main> "},
		{"prompt.toml of the wrong type", "", "[format]\nleft = 3\n",
			"shoal/prompt.toml:2:8: format.left: expected a string, found integer", "~ > "},
		{"unknown key", "", "[format]\nleft = \"k$character\"\nrigth = \"x\"\n",
			"shoal/prompt.toml:3:1: unknown config key `format.rigth` (did you mean `format.right`?)", "k> "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, config := t.TempDir(), t.TempDir()
			if c.main != "" {
				mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), c.main)
			}
			if c.prompt != "" {
				mustWrite(t, filepath.Join(config, "shoal", "prompt.toml"), c.prompt)
			}
			r := startConfigScreen(t, bin, home, home, config, c.prompt1)
			r.send("40 + 2\r")
			r.waitRow("the answer", func(row string) bool { return strings.TrimSpace(row) == "42" })
			screen := r.screenText()
			if !strings.Contains(squash(screen), squash(config+"/"+c.warn)) {
				t.Fatalf("no warning %q naming the file; the screen:\n%s", c.warn, screen)
			}
			if n := strings.Count(screen, "warning:"); n != 1 {
				t.Errorf("%d warnings, want exactly one; the screen:\n%s", n, screen)
			}
			if strings.Contains(screen, "shoal: configuration:") {
				t.Errorf("the snapshot's loader reported the file again:\n%s", screen)
			}
		})
	}
}

// squash drops line breaks and runs of spaces, so a message the terminal
// wrapped compares equal to the message.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// TestConfigStatusOfScriptsAndC: scripts, piped source and -c keep their
// documented status for a configuration they cannot use (2, before
// anything runs), with the same file:line:col message; an unknown key is
// not their business (status 0, nothing on stderr).
func TestConfigStatusOfScriptsAndC(t *testing.T) {
	bin := buildShoal(t)
	home, config := t.TempDir(), t.TempDir()
	script := filepath.Join(home, "s.shl")
	mustWrite(t, script, "echo ran\n")
	run := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + config, "XDG_STATE_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	forms := [][]string{{"-c", "echo ran"}, {script}, {}}
	mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), "version = 1\n[history\n")
	for _, args := range forms {
		out, errs, code := run("echo ran\n", args...)
		if code != 2 || out != "" || !strings.Contains(errs, filepath.Join(config, "shoal", "shoal.toml")+":2:9: expected ']' to close table name") {
			t.Errorf("shoal %q with a malformed shoal.toml: status %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), "version = 1\n[histroy]\nmax_entries = 3\n")
	mustWrite(t, filepath.Join(config, "shoal", "prompt.toml"), "[format\n") // the REPL's file only
	for _, args := range forms {
		out, errs, code := run("echo ran\n", args...)
		if code != 0 || out != "ran\n" || errs != "" {
			t.Errorf("shoal %q with an unknown key: status %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
