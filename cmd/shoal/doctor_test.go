package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
)

// doctorRun runs shoal doctor --json with args in a private HOME and XDG
// tree and returns its checks by name and the exit status.
func doctorRun(t *testing.T, args ...string) (map[string]check, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"doctor", "--json"}, args...), strings.NewReader(""), &stdout, &stderr)
	var rep struct{ Checks []check }
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json printed %q (%v), stderr %q", stdout.String(), err, stderr.String())
	}
	byName := map[string]check{}
	for _, c := range rep.Checks {
		if c.Level != levelOK && c.Fix == "" {
			t.Errorf("%s is %s with no fix: %q", c.Name, c.Level, c.Detail)
		}
		byName[c.Name] = c
	}
	return byName, code, stdout.String()
}

func privateHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "run"))
	t.Setenv("SHOAL_SOCKET", "")
	t.Setenv("SHOAL_TOKEN_STORE", "")
	return home
}

// TestDoctor checks each line against a state directory made for it:
// fresh (warnings, exit 1), with a running kernel, a broken policy and a
// token store others can read (failures, exit 2), and healthy.
func TestDoctor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	home := privateHome(t)
	state := filepath.Join(home, "state", "shoal")

	checks, code, _ := doctorRun(t)
	if checks["state dir"].Level != levelWarn || !strings.Contains(checks["state dir"].Detail, state) {
		t.Errorf("fresh state dir: %+v", checks["state dir"])
	}
	if checks["socket"].Level != levelWarn || !strings.Contains(checks["socket"].Fix, "shoal kernel") {
		t.Errorf("no kernel: %+v", checks["socket"])
	}
	if checks["tokens"].Level != levelOK || checks["policy"].Level != levelOK {
		t.Errorf("fresh tokens/policy: %+v %+v", checks["tokens"], checks["policy"])
	}
	for _, name := range []string{"landlock", "cgroups", "companions"} {
		if checks[name].Level == "" || checks[name].Detail == "" {
			t.Errorf("%s missing: %+v", name, checks[name])
		}
	}
	if code != 1 {
		t.Errorf("fresh: exit %d, want 1 (warnings only)", code)
	}

	// A kernel that answers; a private state dir.
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	sock, kstate := startKernelState(t)
	checks, _, _ = doctorRun(t, "--socket", sock)
	if c := checks["socket"]; c.Level == levelFail || !strings.Contains(c.Detail, "kernel ") || !strings.Contains(c.Detail, sock) {
		t.Errorf("running kernel: %+v", c)
	}
	if !strings.Contains(checks["state dir"].Detail, kstate) { // the kernel's, asked of it
		t.Errorf("the kernel's state dir: %+v", checks["state dir"])
	}

	// A policy file with an unknown field: fail, with its line and column.
	pol := filepath.Join(home, "config", "shoal", "leash.toml")
	if err := os.MkdirAll(filepath.Dir(pol), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte("[principal.\"agent:x\"]\nbogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A token store others may write: the kernel would refuse it.
	store := filepath.Join(state, "tokens.json")
	if _, _, err := auth.Open(store).Create("agent:x", "default", nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store, 0o666); err != nil {
		t.Fatal(err)
	}
	// (named: a kernel that answers is otherwise asked for its own)
	checks, code, _ = doctorRun(t, "--socket", sock, "--state-dir", state, "--policy", pol)
	if c := checks["policy"]; c.Level != levelFail || !strings.Contains(c.Detail, pol+":2:") {
		t.Errorf("bad policy: %+v", c)
	}
	if c := checks["tokens"]; c.Level != levelFail || !strings.Contains(c.Fix, "chmod 600") {
		t.Errorf("readable token store: %+v", c)
	}
	if code != 2 {
		t.Errorf("failures: exit %d, want 2", code)
	}

	// Both fixed: they pass.
	os.WriteFile(pol, []byte("[principal.\"agent:x\"]\n"), 0o600)
	os.Chmod(store, 0o600)
	checks, _, _ = doctorRun(t, "--socket", sock, "--state-dir", state, "--policy", pol)
	if checks["policy"].Level != levelOK || checks["tokens"].Level != levelOK || !strings.Contains(checks["tokens"].Detail, "1 active") {
		t.Errorf("fixed: %+v %+v", checks["policy"], checks["tokens"])
	}

	// The text form: one line per check, fixes indented under them.
	var stdout bytes.Buffer
	run(context.Background(), []string{"doctor"}, strings.NewReader(""), &stdout, &stdout)
	if !strings.Contains(stdout.String(), "state dir") || !strings.Contains(stdout.String(), "landlock") {
		t.Errorf("text report %q", stdout.String())
	}
}

// TestCompanionBesideBinary: shoal kernel runs the shoal-kernel beside the
// built shoal, not one on PATH; a missing companion names the path tried,
// shoal mcp's (exec'd in place, not linked in) included.
func TestCompanionBesideBinary(t *testing.T) {
	dir := binaries(t)
	bin := filepath.Join(dir, "shoal")
	out, err := runBinary(bin, "kernel", "--version")
	if err != nil || !strings.HasPrefix(out, "shoal-kernel ") {
		t.Fatalf("shoal kernel --version: %q, %v", out, err)
	}
	out, err = runBinary(bin, "token", "list")
	want := filepath.Join(dir, "shoal-token")
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("shoal token with no shoal-token beside it: %q, %v; want the path %s", out, err, want)
	}
	out, err = runBinary(bin, "mcp", "--no-autostart")
	want = filepath.Join(dir, "shoal-mcp")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !strings.Contains(out, want) {
		t.Fatalf("shoal mcp with no shoal-mcp beside it: %q, %v; want status 127 and the path %s", out, err, want)
	}
}

// TestDoctorTrust: the trust line is ok for an absent store and one that
// reads, and a failure with a fix for a store others may read.
func TestDoctorTrust(t *testing.T) {
	home := privateHome(t)
	if c := mustCheck(t, "trust"); c.Level != levelOK || !strings.Contains(c.Detail, "0 trusted directories") {
		t.Errorf("absent store: %+v", c)
	}
	path := filepath.Join(home, "state", "shoal", "trust.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version":1,"dirs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := mustCheck(t, "trust"); c.Level != levelFail || !strings.Contains(c.Detail, "group or others") || !strings.Contains(c.Fix, "chmod 600") {
		t.Errorf("readable store: %+v", c)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := mustCheck(t, "trust"); c.Level != levelOK {
		t.Errorf("private store: %+v", c)
	}
}

func mustCheck(t *testing.T, name string) check {
	t.Helper()
	checks, _, _ := doctorRun(t)
	c, ok := checks[name]
	if !ok {
		t.Fatalf("no %s check", name)
	}
	return c
}
