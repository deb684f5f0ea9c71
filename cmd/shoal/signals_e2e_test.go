package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScriptStopsOnSignal: SIGINT and SIGTERM to the built `shoal -c` stop
// the statement that runs (its child process ends with it) and shoal
// exits 1 with a cancelled diagnostic, through the one signal watcher main
// sets up (signals.go).
func TestScriptStopsOnSignal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := filepath.Join(binaries(t), "shoal")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(bin, "-c", sleep+" 1000; 1") // a path: the program, not the builtin
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
				"XDG_STATE_HOME=" + filepath.Join(home, "state")}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			child := waitForChild(t, cmd.Process.Pid, "sleep", done)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a hang guard, not a measurement
				_ = cmd.Process.Kill()
				t.Fatalf("shoal still running a minute after %v; stderr:\n%s", sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("after %v: %v, want exit status 1; stderr:\n%s", sig, err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "cancelled") {
				t.Errorf("after %v the diagnostic does not say cancelled:\n%s", sig, stderr.String())
			}
			for deadline := time.Now().Add(time.Minute); syscall.Kill(child, 0) == nil; time.Sleep(10 * time.Millisecond) {
				if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); strings.Contains(string(stat), ") Z ") {
					break // ended, not yet reaped by its new parent
				}
				if time.Now().After(deadline) {
					t.Fatalf("the statement's child %d outlived shoal", child)
				}
			}
		})
	}
}

// waitForChild returns the pid of a child of pid whose command is name,
// once one exists; it fails if the process exits first.
func waitForChild(t *testing.T, pid int, name string, done <-chan error) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a hang guard
	for {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range stats {
			data, _ := os.ReadFile(f)
			// pid (comm) state ppid ...
			open, end := strings.IndexByte(string(data), '('), strings.LastIndexByte(string(data), ')')
			if open < 0 || end < open {
				continue
			}
			fields := strings.Fields(string(data[end+1:]))
			if len(fields) < 2 || fields[1] != strconv.Itoa(pid) || string(data[open+1:end]) != name {
				continue
			}
			n, _ := strconv.Atoi(strings.TrimSpace(string(data[:open])))
			return n
		}
		select {
		case err := <-done:
			t.Fatalf("shoal exited (%v) before starting %s", err, name)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s child of shoal after a minute", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestScriptSignalledByFirstStatement: a script's first statement already
// runs with SIGINT and SIGTERM registered (signals.go): a first statement
// that signals shoal is cancelled (exit 1, a cancelled diagnostic), where
// a registration not yet made would leave the signal's default action to
// kill shoal (exit 130 or 143). A start that registers the signals later,
// or beside main, to save the hand-offs with the runtime's signal thread
// must still pass (docs/performance.md, "Cold start: the twentieth
// round").
func TestScriptSignalledByFirstStatement(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals its parent through /bin/sh")
	}
	bin := filepath.Join(binaries(t), "shoal")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	for _, sig := range []string{"INT", "TERM"} {
		t.Run(sig, func(t *testing.T) {
			home := t.TempDir()
			kill := filepath.Join(home, "kill-parent")
			if err := os.WriteFile(kill, []byte("#!/bin/sh\nkill -s "+sig+" $PPID\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-c", kill+"; "+sleep+" 1000; 1")
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
				"XDG_STATE_HOME=" + filepath.Join(home, "state"),
				// One P: a registration left to a goroutine of its own then
				// runs only when main lets it, so one still to make when
				// the script starts is more often caught.
				"GOMAXPROCS=1"}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a hang guard, not a measurement
				_ = cmd.Process.Kill()
				t.Fatalf("shoal still running a minute after SIG%s; stderr:\n%s", sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("after SIG%s from the first statement: %v, want exit status 1; stderr:\n%s", sig, err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "cancelled") {
				t.Errorf("after SIG%s the diagnostic does not say cancelled:\n%s", sig, stderr.String())
			}
		})
	}
}
