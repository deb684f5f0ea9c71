package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/prompt"
)

// runShoalEnv runs the built shoal in dir with only env (plus PATH).
func runShoalEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
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

// promptFixture is a home with a prompt.toml and a work directory.
func promptFixture(t *testing.T) (work string, env []string, promptFile string) {
	t.Helper()
	home := t.TempDir()
	conf := filepath.Join(home, "conf")
	if err := os.MkdirAll(filepath.Join(conf, "shoal"), 0o755); err != nil {
		t.Fatal(err)
	}
	promptFile = filepath.Join(conf, "shoal", "prompt.toml")
	toml := "[format]\nleft = \"PFX $directory$character\"\n\n[module.character]\nsuccess_symbol = \"%\"\n"
	if err := os.WriteFile(promptFile, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	work = filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	return work, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + conf, "USER=tester"}, promptFile
}

func TestPromptPrint(t *testing.T) {
	work, env, _ := promptFixture(t)
	out, errs, code := runShoalEnv(t, work, env, "prompt", "print")
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	if !strings.HasPrefix(out, "PFX ~/work") || !strings.Contains(out, "%") || strings.Contains(out, "\x1b[") {
		t.Fatalf("prompt %q", out)
	}
}

func TestPromptExplain(t *testing.T) {
	work, env, file := promptFixture(t)
	out, _, code := runShoalEnv(t, work, env, "prompt", "explain")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	row := func(out, name string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, name+" ") {
				return l
			}
		}
		t.Fatalf("no row %s in:\n%s", name, out)
		return ""
	}
	if r := row(out, "format.left"); !strings.Contains(r, `"PFX $directory$character"`) || !strings.HasSuffix(r, file) {
		t.Errorf("format.left: %q", r)
	}
	if r := row(out, "character"); !strings.Contains(r, "yes") || !strings.HasSuffix(r, file) {
		t.Errorf("character: %q", r)
	}
	if r := row(out, "directory"); !strings.Contains(r, `"~/work`) || !strings.HasSuffix(r, "default") {
		t.Errorf("directory: %q", r)
	}
	if r := row(out, "time"); !strings.Contains(r, " no ") {
		t.Errorf("time: %q", r)
	}
	for _, m := range prompt.Modules {
		row(out, m)
	}
	out, _, _ = runShoalEnv(t, work, append(env, "SHOAL_PROMPT_LEFT=$character"), "prompt", "explain")
	if r := row(out, "format.left"); !strings.HasSuffix(r, "environment") {
		t.Errorf("format.left from the environment: %q", r)
	}
}

func TestPromptBench(t *testing.T) {
	work, env, _ := promptFixture(t)
	out, errs, code := runShoalEnv(t, work, env, "prompt", "bench")
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	for _, want := range append([]string{"facts", "whole prompt"}, prompt.Modules...) {
		if !strings.Contains(out, want) {
			t.Errorf("bench lacks %s:\n%s", want, out)
		}
	}
}

func TestPromptUsage(t *testing.T) {
	for _, args := range [][]string{{"prompt"}, {"prompt", "draw"}, {"prompt", "print", "x"}} {
		if _, errs, code := runShoalEnv(t, t.TempDir(), nil, args...); code != 2 || !strings.Contains(errs, "usage: shoal prompt") {
			t.Errorf("%v: code %d err %q", args, code, errs)
		}
	}
}
