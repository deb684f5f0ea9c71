package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// startKernelWith starts the built shoal-kernel on a fresh socket with
// extra flags and returns the socket once it said it was ready.
func startKernelWith(t *testing.T, args ...string) string {
	t.Helper()
	run := shortDir(t)
	return launchKernel(t, run, append([]string{"--socket", filepath.Join(run, "k.sock")}, args...)...)
}

// TestDoctorAsksTheKernel (18): a kernel that answers is asked for its
// state directory, token store and policy, and those are what doctor
// reports and checks, not its own defaults; a kernel without --policy is
// reported as running the default policy.
func TestDoctorAsksTheKernel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	home := privateHome(t)
	kstate := filepath.Join(t.TempDir(), "kstate")
	pol := filepath.Join(t.TempDir(), "kernel-leash.toml")
	if err := os.WriteFile(pol, []byte("[principal.\"agent:x\"]\n[principal.\"agent:y\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := startKernelWith(t, "--state-dir", kstate, "--policy", pol)
	checks, _, _ := doctorRun(t, "--socket", sock)
	if c := checks["socket"]; c.Level == levelFail || !strings.Contains(c.Detail, "state dir "+kstate) ||
		!strings.Contains(c.Detail, "policy "+pol+" (2 principals)") {
		t.Errorf("socket line does not report the kernel's state dir and policy: %+v", c)
	}
	if c := checks["state dir"]; c.Level != levelOK || !strings.Contains(c.Detail, kstate) {
		t.Errorf("state dir checked is not the kernel's: %+v", c)
	}
	if c := checks["tokens"]; !strings.Contains(c.Detail, kstate) {
		t.Errorf("token store checked is not the kernel's: %+v", c)
	}
	if c := checks["policy"]; c.Level != levelOK || !strings.Contains(c.Detail, pol+" loads") {
		t.Errorf("policy checked is not the kernel's: %+v", c)
	}
	if c := checks["state dir"]; strings.Contains(c.Detail, filepath.Join(home, "state")) {
		t.Errorf("doctor still looked at its default state dir: %+v", c)
	}

	bare := startKernelWith(t) // no --policy, no --state-dir given: the kernel's own default
	checks, _, _ = doctorRun(t, "--socket", bare)
	if c := checks["socket"]; !strings.Contains(c.Detail, "default policy") {
		t.Errorf("a kernel without --policy: %+v", c)
	}
	if c := checks["policy"]; c.Level != levelOK || !strings.Contains(c.Detail, "without --policy") {
		t.Errorf("a kernel without --policy: policy line %+v", c)
	}
}

// TestDoctorReportsConfigProblems (18): doctor reports what the REPL
// warns about (a file it leaves out, with file:line:col; unknown keys;
// unknown prompt modules) and what makes scripts and -c refuse to start.
func TestDoctorReportsConfigProblems(t *testing.T) {
	home := privateHome(t)
	cfg := filepath.Join(home, "config", "shoal")
	checks, _, _ := doctorRun(t)
	if c := checks["config"]; c.Level != levelOK {
		t.Errorf("no configuration: %+v", c)
	}
	mustWrite(t, filepath.Join(cfg, "shoal.toml"), "version = 1\n[history\n")
	mustWrite(t, filepath.Join(cfg, "prompt.toml"), "[format]\nleft = \"$directory$nope$character\"\nrigth = \"x\"\n")
	_, code, out := doctorRun(t)
	for _, want := range []string{
		filepath.Join(cfg, "shoal.toml") + ":2:9: expected ']' to close table name; the REPL leaves this file out, and scripts and -c refuse to start (status 2)",
		filepath.Join(cfg, "prompt.toml") + ":3:1: unknown config key `format.rigth` (did you mean `format.right`?)",
		"prompt format.left: unknown module `$nope`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not report %q:\n%s", want, out)
		}
	}
	if code != 2 {
		t.Errorf("a shoal.toml scripts cannot use: exit %d, want 2", code)
	}
}
