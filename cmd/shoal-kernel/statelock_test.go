package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSecondKernelOnOneStateDirIsRefused starts two kernels on different
// sockets over one state directory: the second must refuse to start (two
// writers of one journal and blob store would corrupt each other's view),
// naming the directory and the holder's pid, and bind no socket; once the
// first has gone, the directory can be opened again.
func TestSecondKernelOnOneStateDirIsRefused(t *testing.T) {
	dir := shortDir(t)
	state := filepath.Join(dir, "st")
	first := startProc(t, dir, "--socket", filepath.Join(dir, "a.sock"), "--state-dir", state)
	first.readyLine(t)

	second := startProc(t, dir, "--socket", filepath.Join(dir, "b.sock"), "--state-dir", state)
	r := <-second.first
	if code := second.wait(t); code == 0 {
		t.Fatalf("second kernel on one state dir exited 0; first line %q", r.line)
	}
	pid := strconv.Itoa(first.cmd.Process.Pid)
	if !strings.Contains(r.line, "in use") || !strings.Contains(r.line, state) || !strings.Contains(r.line, "pid "+pid) {
		t.Errorf("refusal %q should say the directory %s is in use by pid %s", r.line, state, pid)
	}
	if _, err := os.Lstat(filepath.Join(dir, "b.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused kernel bound its socket: %v", err)
	}

	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("first kernel exit %d", code)
	}
	third := startProc(t, dir, "--socket", filepath.Join(dir, "c.sock"), "--state-dir", state)
	third.readyLine(t)
}
