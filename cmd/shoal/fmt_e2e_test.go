package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runShoal runs the built shoal with args and stdin in dir.
func runShoal(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

const (
	fmtMessy = "if true {\n      echo a   # keep me\n\n\n}\nlet x = 1"
	fmtTidy  = "if true {\n  echo a # keep me\n}\nlet x = 1\n"
)

// TestFmtE2E drives shoal fmt's modes through the built binary.
func TestFmtE2E(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o640); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write("messy.shl", fmtMessy)
	write("tidy.shl", fmtTidy)
	write("broken.shl", "let x = (\n")

	if out, errs, code := runShoal(t, dir, fmtMessy, "fmt"); code != 0 || out != fmtTidy || errs != "" {
		t.Fatalf("stdin: code %d out %q err %q", code, out, errs)
	}
	if out, _, code := runShoal(t, dir, "", "fmt", "messy.shl"); code != 0 || out != fmtTidy || read("messy.shl") != fmtMessy {
		t.Fatalf("file to stdout: code %d out %q", code, out)
	}
	if _, errs, code := runShoal(t, dir, "", "fmt", "--check", "tidy.shl"); code != 0 || errs != "" {
		t.Fatalf("--check on a tidy file: code %d err %q", code, errs)
	}
	if _, errs, code := runShoal(t, dir, "", "fmt", "--check", "tidy.shl", "messy.shl"); code != 1 || !strings.Contains(errs, "messy.shl") {
		t.Fatalf("--check on a messy file: code %d err %q", code, errs)
	}
	if out, _, code := runShoal(t, dir, "", "fmt", "-l", "tidy.shl", "messy.shl"); code != 0 || out != "messy.shl\n" {
		t.Fatalf("-l: code %d out %q", code, out)
	}
	out, _, code := runShoal(t, dir, "", "fmt", "-d", "messy.shl")
	if code != 0 || !strings.HasPrefix(out, "--- messy.shl.orig\n+++ messy.shl\n@@ ") {
		t.Fatalf("-d: code %d out %q", code, out)
	}
	if got, err := applyUnifiedDiff(fmtMessy, out); err != nil || got != fmtTidy {
		t.Fatalf("-d does not patch the source into the formatted one: %v\n%q", err, got)
	}
	// A source that does not parse: exit 2 with the diagnostic, nothing
	// written, even to the files that did parse.
	_, errs, code := runShoal(t, dir, "", "fmt", "-w", "messy.shl", "broken.shl")
	if code != 2 || !strings.Contains(errs, "broken.shl:1:") || read("messy.shl") != fmtMessy || read("broken.shl") != "let x = (\n" {
		t.Fatalf("-w with a broken file: code %d err %q", code, errs)
	}
	if _, errs, code := runShoal(t, dir, "let x = (\n", "fmt"); code != 2 || !strings.Contains(errs, "parse_error") {
		t.Fatalf("broken stdin: code %d err %q", code, errs)
	}
	if _, errs, code := runShoal(t, dir, "", "fmt", "-w", "messy.shl"); code != 0 || errs != "" || read("messy.shl") != fmtTidy {
		t.Fatalf("-w: code %d err %q now %q", code, errs, read("messy.shl"))
	}
	if st, err := os.Stat(filepath.Join(dir, "messy.shl")); err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("-w changed the mode: %v %v", st.Mode(), err)
	}
	if _, _, code := runShoal(t, dir, "", "fmt", "-w", "-d", "messy.shl"); code != 2 {
		t.Fatalf("two modes: code %d", code)
	}
	if _, _, code := runShoal(t, dir, "", "fmt", "-w"); code != 2 {
		t.Fatalf("-w on stdin: code %d", code)
	}
	if _, _, code := runShoal(t, dir, "", "fmt", "nosuch.shl"); code != 2 {
		t.Fatalf("missing file: code %d", code)
	}
}

// TestFmtStdinBound: a source ten times the formatter's bound is refused
// with exit 2 and the process ends normally.
func TestFmtStdinBound(t *testing.T) {
	big := strings.Repeat("let x = 1\n", 10*(16<<20)/10)
	_, errs, code := runShoal(t, t.TempDir(), big, "fmt")
	if code != 2 || !strings.Contains(errs, "limit") {
		t.Fatalf("code %d err %q", code, errs)
	}
}

// TestSubcommandsNotScripts: an unknown bare word is an error naming the
// subcommands; scripts named by path or with a dot still run, and a file
// named like a bare word runs when it exists.
func TestSubcommandsNotScripts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.shl"), []byte("40 + 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build"), []byte("7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runShoal(t, dir, "", "frobnicate")
	if code != 2 || !strings.Contains(errs, `unknown subcommand "frobnicate"`) || !strings.Contains(errs, "fmt, completions") {
		t.Fatalf("unknown word: code %d err %q", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"script.shl"}, "42\n"},
		{[]string{"./script.shl"}, "42\n"},
		{[]string{"build"}, "7\n"},
		{[]string{"-c", "1 + 1"}, "2\n"},
	} {
		if out, errs, code := runShoal(t, dir, "", c.args...); code != 0 || out != c.want {
			t.Errorf("%v: code %d out %q err %q", c.args, code, out, errs)
		}
	}
	if _, errs, code := runShoal(t, dir, "", "./missing"); code != 2 || strings.Contains(errs, "subcommand") {
		t.Errorf("./missing: code %d err %q", code, errs)
	}
}
