package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReefThroughTheBinary runs the built shoal in a trusted project whose
// .reef.toml constrains a fake tool: -c is a script, so the unlocked tool
// is refused (exit 1, reef_unlocked on stderr, the tool never runs) until
// `reef lock` writes reef.lock; then the locked binary runs, and an edit
// of its bytes is reef_drift.
func TestReefThroughTheBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	tools := filepath.Join(root, "tools")
	proj := filepath.Join(root, "proj")
	for _, d := range []string{tools, proj, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	tool := filepath.Join(tools, "faketool")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo faketool 2.4.1; exit 0; fi\ntouch " + marker + "\necho ran\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".reef.toml"), []byte("[tools]\nfaketool = \"2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(src string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, "-c", src)
		cmd.Dir = proj
		cmd.Env = []string{"PATH=" + tools + ":/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"),
			"XDG_CONFIG_HOME=" + filepath.Join(root, "cfg"), "XDG_STATE_HOME=" + filepath.Join(root, "state")}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	// The person trusts the project first (trust_e2e_test.go covers the
	// untrusted case).
	cmd := exec.Command(bin, "trust")
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + filepath.Join(root, "home"), "XDG_STATE_HOME=" + filepath.Join(root, "state")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shoal trust: %v\n%s", err, out)
	}
	if _, stderr, code := run("faketool"); code == 0 || !strings.Contains(stderr, "reef_unlocked") {
		t.Fatalf("unlocked: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the unlocked tool ran")
	}
	if out, stderr, code := run("(reef lock).first().version"); code != 0 || strings.TrimSpace(out) != "2.4.1" {
		t.Fatalf("reef lock: exit %d, out %q, stderr %q", code, out, stderr)
	}
	if out, stderr, code := run("faketool"); code != 0 || strings.TrimSpace(out) != "ran" {
		t.Fatalf("locked: exit %d, out %q, stderr %q", code, out, stderr)
	}
	if out, _, _ := run("(which faketool).scope"); strings.TrimSpace(out) != "reef" {
		t.Errorf("which scope = %q", out)
	}
	if err := os.WriteFile(tool, []byte(script+"# changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run("faketool"); code == 0 || !strings.Contains(stderr, "reef_drift") || !strings.Contains(stderr, "reef lock --refresh") {
		t.Errorf("drift: exit %d, stderr %q", code, stderr)
	}
}
