package main

// `shoal kernel ARGS…` and `shoal token ARGS…` run shoal-kernel and
// shoal-token found beside this executable (the directory of
// os.Executable), never through PATH: a shoal on PATH must not start some
// other build's kernel. A missing companion is one line naming the path
// tried.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// companions maps a subcommand to the binary it runs.
var companions = map[string]string{
	"kernel": "shoal-kernel",
	"token":  "shoal-token",
}

// companionPath is where the companion binary name is expected: beside
// the running executable (symlinks resolved, so an installed link finds
// its real directory's companions).
func companionPath(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	return filepath.Join(filepath.Dir(self), name), nil
}

// companion runs the companion binary with args and the given streams,
// passes SIGINT, SIGTERM and SIGHUP on to it, and returns its exit status
// (128+N when a signal ended it).
func companion(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, err := companionPath(name)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		fmt.Fprintf(stderr, "shoal: %s is not installed beside shoal: no executable %s (install it next to %s)\n",
			name, path, filepath.Dir(path))
		return 127
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "shoal: %s: %v\n", path, err)
		return 126
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "shoal: %s: %v\n", path, err)
	return 1
}
