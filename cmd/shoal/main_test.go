package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	buildversion "github.com/shoalgo/shoal/internal/version"
)

func TestRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.shl")
	if err := os.WriteFile(script, []byte("let x = 2\nx * 21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	argScript := filepath.Join(t.TempDir(), "args.shl")
	if err := os.WriteFile(argScript, []byte("echo (args)\nargs.len()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		stdin     string
		code      int
		stdout    string   // exact
		stderrHas []string // substrings
		stdoutHas string
	}{
		{name: "expression", args: []string{"-c", "1 + 2"}, stdout: "3\n"},
		{name: "long flag", args: []string{"--command", `"a" + "b"`}, stdout: "ab\n"},
		{name: "null prints nothing", args: []string{"-c", "null"}, stdout: ""},
		{name: "interpreter block streams once", args: []string{"-c", "sh { echo from sh }"}, stdout: "from sh\n"},
		{name: "captured block is displayed", args: []string{"-c", "(sh { echo from sh }).out"}, stdout: "from sh\n"},
		{name: "readme example", args: []string{"-c", "let xs = [3, 1, 2]\nxs.sort().map(x => x * 10)"}, stdout: "0  10\n1  20\n2  30\n"},
		{name: "script file", args: []string{script}, stdout: "42\n"},
		{name: "script arguments", args: []string{argScript, "a", "b c"}, stdout: "[\"a\", \"b c\"]\n2\n"},
		{name: "script without arguments", args: []string{argScript}, stdout: "[]\n0\n"},
		{name: "script arguments after --", args: []string{"--", argScript, "--flag"}, stdout: "[\"--flag\"]\n1\n"},
		{name: "exit N", args: []string{"-c", "exit 4"}, code: 4},
		{name: "stdin", stdin: "40 + 2", stdout: "42\n"},
		{name: "version", args: []string{"--version"}, stdoutHas: "shoal " + buildversion.String()},
		{name: "parse error", args: []string{"-c", "let x = (1 +"}, code: 2, stdout: "",
			stderrHas: []string{"error[parse_error]", "--> -c:1:", "^"}},
		{name: "language error", args: []string{"-c", "let a = 1\na / 0"}, code: 1, stdout: "",
			stderrHas: []string{"error[div_zero]", "2 | a / 0", "^"}},
		{name: "missing file", args: []string{filepath.Join(t.TempDir(), "nope.shl")}, code: 2, stderrHas: []string{"shoal:"}},
		{name: "args after -c", args: []string{"-c", "1", "extra"}, code: 2, stderrHas: []string{"unexpected arguments"}},
		{name: "bad flag", args: []string{"--nope"}, code: 2, stderrHas: []string{"usage:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := run(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tt.code, errb.String())
			}
			if tt.stdoutHas != "" {
				if !strings.Contains(out.String(), tt.stdoutHas) {
					t.Errorf("stdout %q lacks %q", out.String(), tt.stdoutHas)
				}
			} else if out.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
			}
			for _, s := range tt.stderrHas {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr %q lacks %q", errb.String(), s)
				}
			}
		})
	}
}

// TestCommandOutput checks that command output appears exactly once,
// whether it streamed (external, statement position) or is the displayed
// final value (a builtin, or a captured outcome).
func TestCommandOutput(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	tests := []struct{ name, src, want string }{
		{"builtin final", "echo hello", "hello\n"},
		{"external final", sh + ` -c "echo hi"`, "hi\n"},
		{"external then value", sh + ` -c "echo hi"` + "\n1", "hi\n1\n"},
		{"captured external", "(" + sh + ` -c "echo cap")`, "cap\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := run(context.Background(), []string{"-c", tt.src}, strings.NewReader(""), &out, &errb)
			if code != 0 || out.String() != tt.want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0, %q", code, out.String(), errb.String(), tt.want)
			}
		})
	}
}

// TestFailedCommandExitStatus: an uncaught cmd_failed exits with the
// child's status (1..255), a signal death with 1, as the reference's CLI
// table says.
func TestFailedCommandExitStatus(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, tt := range []struct {
		src  string
		code int
	}{
		{sh + ` -c "exit 7"`, 7},
		{sh + ` -c "exit 255"`, 255},
		{sh + ` -c "exit 1"`, 1},
		{sh + ` -c 'kill -9 $$'`, 1},
		{"let r = (" + sh + ` -c "exit 9")` + "\nexit (r.status)", 9},
	} {
		var out, errb strings.Builder
		code := run(context.Background(), []string{"-c", tt.src}, strings.NewReader(""), &out, &errb)
		if code != tt.code {
			t.Errorf("%s: exit %d (stderr %q), want %d", tt.src, code, errb.String(), tt.code)
		}
		if tt.code == 7 && (!strings.Contains(errb.String(), "error[cmd_failed]") || !strings.Contains(errb.String(), "status 7")) {
			t.Errorf("stderr %q lacks a cmd_failed diagnostic naming status 7", errb.String())
		}
	}
}
