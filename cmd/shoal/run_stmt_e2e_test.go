package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunInStatementPosition: `run TARGET` as a statement runs its program
// the way a command in that position runs (its output reaches the
// terminal or stdout once; a failure raises cmd_failed), where it used
// to capture the output and show nothing. In value position the output
// is captured, and with `>` it goes to the file only.
func TestRunInStatementPosition(t *testing.T) {
	bin := buildShoal(t)
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"from script: $1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tool"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=/usr/bin:/bin", "NO_COLOR=1"}
	cases := []struct {
		src, stdout string
		fails       bool
	}{
		{src: `run ./tool a`, stdout: "from script: a\n"},
		{src: `run ./tool b; 7`, stdout: "from script: b\n7\n"},
		{src: `run echo plain`, stdout: "plain\n"},
		{src: `let o = run ./tool c; o.out.lines().len()`, stdout: "1\n"},
		{src: `run ./tool d > out.txt; path("out.txt").read() == "from script: d\n"`, stdout: "true\n"},
		{src: `run ls ./missing; "not reached"`, fails: true},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, "-c", c.src)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if c.fails {
			if err == nil || !strings.Contains(stderr.String(), "cmd_failed") || strings.Contains(stdout.String(), "not reached") {
				t.Errorf("shoal -c %q: err %v, stdout %q, stderr %q; want cmd_failed and a stop", c.src, err, stdout.String(), stderr.String())
			}
			continue
		}
		if err != nil {
			t.Errorf("shoal -c %q: %v\n%s", c.src, err, stderr.String())
			continue
		}
		if got := stdout.String(); got != c.stdout {
			t.Errorf("shoal -c %q: stdout %q, want %q", c.src, got, c.stdout)
		}
	}

	// On a terminal the program gets the terminal, as `^prog` does.
	r := startScreenREPL(t, bin, dir, append(env, "SHOAL_PROMPT_LEFT=shoal> ", "INPUTRC=/dev/null"))
	r.send("run ./tool on-tty\r")
	r.waitRow("the script's line", func(row string) bool { return strings.TrimSpace(row) == "from script: on-tty" })
	r.send("exit\r")
}
