package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetListDelete drives the command in-process over a temporary store.
func TestSetListDelete(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	call := func(stdin string, args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := run(args, env, strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, _ := call("tok-1", "set", "api-token"); code != 0 {
		t.Fatalf("set: %d", code)
	}
	if code, _, _ := call("x", "set", "other"); code != 0 {
		t.Fatalf("set other: %d", code)
	}
	p := filepath.Join(home, ".local", "share", "shoal", "secrets", "api-token")
	if b, err := os.ReadFile(p); err != nil || string(b) != "tok-1" {
		t.Fatalf("stored %q, %v", b, err)
	}
	if code, out, _ := call("", "list"); code != 0 || out != "api-token\nother\n" {
		t.Fatalf("list = %d %q", code, out)
	}
	if code, _, _ := call("", "delete", "other"); code != 0 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := call("", "delete", "other"); code != 0 {
		t.Fatalf("delete of a missing name: %d", code)
	}
	if code, out, _ := call("", "list"); code != 0 || out != "api-token\n" {
		t.Fatalf("list after delete = %d %q", code, out)
	}
	for _, bad := range [][]string{{}, {"get", "api-token"}, {"set"}, {"set", "../x"}, {"list", "x"}, {"delete"}, {"delete", "a/b"}} {
		if code, out, _ := call("", bad...); code != 2 || strings.Contains(out, "tok-1") {
			t.Errorf("%q: exit %d (stdout %q), want 2", bad, code, out)
		}
	}
	if code, _, errs := call(strings.Repeat("x", 70<<10), "set", "huge"); code != 1 || !strings.Contains(errs, "larger") {
		t.Errorf("a huge secret: exit %d, %q", code, errs)
	}
	var errb strings.Builder
	if code := run([]string{"list"}, nil, strings.NewReader(""), &errb, &errb); code != 2 {
		t.Errorf("no store: exit %d", code)
	}
}

// TestStandaloneShoalReadsWhatWasSet builds shoal-secret and shoal: a
// secret set with SHOAL_SECRET_DIR is what secret.get sees under the same
// environment, shown only by name.
func TestStandaloneShoalReadsWhatWasSet(t *testing.T) {
	bin := t.TempDir()
	for _, pkg := range []string{".", "../shoal"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // pure Go, as shipped
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "cfg"), "SHOAL_SECRET_DIR=" + filepath.Join(home, "custom"), "PATH=" + os.Getenv("PATH")}
	set := exec.Command(filepath.Join(bin, "shoal-secret"), "set", "api-token")
	set.Env, set.Stdin = env, strings.NewReader("material-xyz")
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("set: %v %s", err, out)
	}
	sh := exec.Command(filepath.Join(bin, "shoal"), "-c", `let t = secret.get("api-token"); [t, t == secret.get("api-token")]`)
	sh.Env, sh.Dir = env, home
	out, err := sh.CombinedOutput()
	if err != nil || strings.Contains(string(out), "material-xyz") || !strings.Contains(string(out), "secret(api-token)") {
		t.Fatalf("shoal: %v\n%s", err, out)
	}
}
