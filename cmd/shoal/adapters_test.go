package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdaptersEndToEnd runs the built shoal with a user adapter directory
// under a temporary XDG_CONFIG_HOME: the user's adapter parses its
// program's output, a bundled adapter refuses a mistyped flag before the
// program starts, and a broken file is reported with file, line and
// column while its valid sibling still loads.
func TestAdaptersEndToEnd(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "config", "shoal", "adapters")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"greet.toml": "[cmd.greet]\nbin = \"printf\"\nparams = { who = \"str\" }\npositional = [\"who\"]\ninvoke = [\"name=%s\\nready=yes\\n\"]\noutput = { parse = \"kv\", type = \"record\" }\n",
		"bad.toml":   "[cmd.broken]\nbinary = \"x\"\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(src string) (string, string, int) {
		cmd := exec.Command(bin, "-c", src)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "PATH=" + os.Getenv("PATH")}
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
	out, errOut, code := run(`(greet "ada").out.name`)
	if code != 0 || out != "ada\n" {
		t.Errorf("greet: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if want := "shoal: adapters: " + filepath.Join(dir, "bad.toml") + `:2:1: unknown field "cmd.broken.binary"`; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	out, errOut, code = run(`cargo build --jobs "many"`)
	if code != 1 || out != "" || !strings.Contains(errOut, "error[arg_error]: cargo build: --jobs expects int") {
		t.Errorf("cargo build --jobs many: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A program that runs no command never reads the catalog.
	out, errOut, code = run(`1 + 1`)
	if code != 0 || out != "2\n" || errOut != "" {
		t.Errorf("1 + 1: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
