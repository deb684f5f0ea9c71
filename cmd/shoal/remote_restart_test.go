//go:build linux

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestRemoteRestartReentersThePromptsDirectory: a session that never left
// the kernel's directory has no checkpoint, so after the kernel restarts
// from another directory the REPL's reconnect finds a new session there.
// The REPL then puts it back where its prompt was, since nothing of the old
// session, nor another client's move, is left to respect.
func TestRemoteRestartReentersThePromptsDirectory(t *testing.T) {
	bin := filepath.Join(binaries(t), "shoal-kernel")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "k.sock")
	start := func(cwd string) *exec.Cmd { return startKernelIn(t, bin, sock, filepath.Join(dir, "state"), cwd) }
	stop := func(k *exec.Cmd) {
		k.Process.Signal(syscall.SIGTERM)
		k.Wait()
	}
	k := start(wd)
	r, err := dialRemote(context.Background(), remoteTarget{Socket: sock}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Eval(context.Background(), "pwd", nil); err != nil || value.Display(v) != wd {
		t.Fatalf("first kernel: pwd = %v, %v; want %s", v, err, wd)
	}
	stop(k)
	if _, err := r.Eval(context.Background(), "1", nil); err == nil {
		t.Fatal("a statement with no kernel did not fail")
	}
	k = start(elsewhere)
	defer stop(k)
	if v, err := r.Eval(context.Background(), "pwd", nil); err != nil || value.Display(v) != wd {
		t.Fatalf("after the restart from %s: pwd = %v, %v; want %s", elsewhere, v, err, wd)
	}
	if r.cwd != wd {
		t.Errorf("the prompt's directory is %q, want %q", r.cwd, wd)
	}
}
