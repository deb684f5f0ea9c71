package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
// sets up (signals.go). The build whose scripts never reach the grace
// (nograce) does the same: a script takes its signals over before it
// starts its first process (the host's hook), whatever the timer.
func TestScriptStopsOnSignal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	for _, build := range []struct {
		name string
		bin  func(*testing.T) string
	}{{"shoal", shoalBin}, {"nograce", noGraceBin}} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(build.name+"/"+sig.String(), func(t *testing.T) {
				// A path: the program, not the builtin (`^sleep` is the builtin too).
				cmd, stderr := scriptCommand(t, build.bin(t), sleep+" 1000; 1")
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
				wantCancelled(t, sig.String(), waitSignalled(t, cmd, done, stderr), stderr)
				waitGone(t, child)
			})
		}
	}
}

// shoalBin is the built shoal; noGraceBin the build whose scripts never
// reach the signal grace (builtNoGrace).
func shoalBin(t *testing.T) string { return filepath.Join(binaries(t), "shoal") }

func noGraceBin(t *testing.T) string {
	t.Helper()
	bin, err := builtNoGrace()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// scriptCommand is `bin -c src` in a home of its own, its stderr kept.
func scriptCommand(t *testing.T, bin, src string, env ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, "-c", src)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state")}, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// waitSignalled is cmd's end, as done reports it; a hang guard fails the test
// a minute on.
func waitSignalled(t *testing.T, cmd *exec.Cmd, done <-chan error, stderr *strings.Builder) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute): // a hang guard, not a measurement
		_ = cmd.Process.Kill()
		t.Fatalf("shoal still running a minute after the signal; stderr:\n%s", stderr.String())
	}
	return nil
}

// wantCancelled fails unless err is exit status 1 with a cancelled
// diagnostic on stderr.
func wantCancelled(t *testing.T, sig string, err error, stderr *strings.Builder) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("after %v: %v, want exit status 1; stderr:\n%s", sig, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("after %v the diagnostic does not say cancelled:\n%s", sig, stderr.String())
	}
	if !strings.Contains(stderr.String(), "signal received") || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("after %v the diagnostic does not name the signal:\n%s", sig, stderr.String())
	}
}

// waitGone fails unless process pid ends (or is a zombie: ended, not yet
// reaped by its new parent) within a minute.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the statement's child %d outlived shoal", pid)
		}
	}
}

// startReady starts cmd and waits until its script has printed the line
// "ready" (the test's sign that it has reached the point to signal).
func startReady(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder) <-chan error {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("printed %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("no ready line: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute): // a hang guard
		_ = cmd.Process.Kill()
		t.Fatalf("no ready line a minute on; stderr:\n%s", stderr.String())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}

// spin is a script's endless pure computation, after its ready line.
const spin = "echo ready; var i = 0; while true { i += 1 }"

// TestScriptSignalledBeforeTakeover: a script that has started nothing
// and changed nothing leaves SIGINT and SIGTERM their default action, so
// that `shoal -c 1` never starts the runtime's signal thread: the signal
// kills shoal (a shell reports 130 or 143), with no cancelled diagnostic.
// The nograce build, so that the grace cannot pass first, however slow
// the machine.
func TestScriptSignalledBeforeTakeover(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signal deaths as Linux reports them")
	}
	bin := noGraceBin(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr := scriptCommand(t, bin, spin)
			done := startReady(t, cmd, stderr)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := waitSignalled(t, cmd, done, stderr)
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("after %v: %v, want death by the signal; stderr:\n%s", sig, err, stderr.String())
			}
			ws, ok := ee.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Fatalf("after %v: %v, want death by the signal; stderr:\n%s", sig, err, stderr.String())
			}
			if strings.Contains(stderr.String(), "cancelled") {
				t.Errorf("a death by %v printed a diagnostic:\n%s", sig, stderr.String())
			}
		})
	}
}

// TestScriptSignalledAfterWrite: changing the file system takes the
// signals over too (a write killed half-way would be left half-done): a
// script that has saved a file and then computes is cancelled by SIGINT
// and SIGTERM, exit 1, in the nograce build, where no timer does it.
func TestScriptSignalledAfterWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals as Linux delivers them")
	}
	bin := noGraceBin(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr := scriptCommand(t, bin, `save ./out.txt "x"; `+spin)
			done := startReady(t, cmd, stderr)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			wantCancelled(t, sig.String(), waitSignalled(t, cmd, done, stderr), stderr)
		})
	}
}

// TestScriptSignalledPastGrace: a script that computes past SignalGrace
// without starting anything has taken its signals over through the grace
// timer: SIGINT cancels it (exit 1, cancelled). It prints its ready line
// only after 300 ms by its own clock, thirty times the grace, so the
// timer has fired and run long before; with one P too, where the timer's
// goroutine runs only once the loop is preempted.
func TestScriptSignalledPastGrace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals as Linux delivers them")
	}
	if SignalGrace*30 > 300*time.Millisecond {
		t.Fatalf("the script below waits 300 ms, not thirty times SignalGrace (%v)", SignalGrace)
	}
	bin := shoalBin(t)
	for _, procs := range []string{"1", "2"} {
		t.Run("GOMAXPROCS="+procs, func(t *testing.T) {
			cmd, stderr := scriptCommand(t, bin, "let t0 = now(); var n = 0; while now() - t0 < 300ms { n += 1 }; "+spin,
				"GOMAXPROCS="+procs)
			done := startReady(t, cmd, stderr)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			wantCancelled(t, "SIGINT", waitSignalled(t, cmd, done, stderr), stderr)
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

// TestScriptSignalledByFirstStatement: a script whose first statement
// starts a process has SIGINT and SIGTERM registered before that process
// is forked (the host's hook, signals.go): a first statement that signals
// shoal is cancelled (exit 1, a cancelled diagnostic), where a
// registration not yet made would leave the signal's default action to
// kill shoal (exit 130 or 143). A start that registers the signals later,
// or beside main, to save the hand-offs with the runtime's signal thread
// must still pass (docs/performance.md, "Cold start: the twentieth
// round"); so must the nograce build, where no timer can register first.
func TestScriptSignalledByFirstStatement(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals its parent through /bin/sh")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	for _, build := range []struct {
		name string
		bin  func(*testing.T) string
	}{{"shoal", shoalBin}, {"nograce", noGraceBin}} {
		for _, sig := range []string{"INT", "TERM"} {
			t.Run(build.name+"/"+sig, func(t *testing.T) {
				home := t.TempDir()
				kill := filepath.Join(home, "kill-parent")
				if err := os.WriteFile(kill, []byte("#!/bin/sh\nkill -s "+sig+" $PPID\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				// One P: a registration left to a goroutine of its own then
				// runs only when main lets it, so one still to make when
				// the script starts is more often caught.
				cmd, stderr := scriptCommand(t, build.bin(t), kill+"; "+sleep+" 1000; 1", "GOMAXPROCS=1")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cmd.Process.Kill() })
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				wantCancelled(t, "SIG"+sig+" from the first statement", waitSignalled(t, cmd, done, stderr), stderr)
			})
		}
	}
}
