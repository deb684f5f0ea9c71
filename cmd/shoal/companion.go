package main

// `shoal kernel ARGS…`, `shoal token ARGS…` and `shoal mcp ARGS…` run
// shoal-kernel, shoal-token and shoal-mcp found beside this executable
// (the directory of os.Executable), never through PATH: a shoal on PATH
// must not start some other build's kernel. A missing companion is one
// line naming the path tried. shoal-mcp is a companion rather than linked
// in so that shoal does not link (and initialise at every start) the MCP
// SDK and its JSON schema, gob and OAuth packages, which -c never uses.

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
	"mcp":    "shoal-mcp",
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

// ownStreams reports whether stdin, stdout and stderr are this process's
// own, so that a companion exec'd in its place serves the same streams.
func ownStreams(stdin io.Reader, stdout, stderr io.Writer) bool {
	return stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr)
}

// execCompanion replaces this process with the companion binary name
// (same pid, streams, environment and signals: shoal mcp is shoal-mcp for
// the MCP client that started it, and an autostarted kernel's parent-death
// signal follows it). It returns only on failure, with the status
// companion gives for the same failure.
func execCompanion(name string, args []string, stderr io.Writer) int {
	path, err := companionPath(name)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	if code := checkCompanion(name, path, stderr); code != 0 {
		return code
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	fmt.Fprintf(stderr, "shoal: %s: %v\n", path, err)
	return 126
}

// checkCompanion is 0 when path is an executable file, else 127 after a
// line saying where the companion was expected.
func checkCompanion(name, path string, stderr io.Writer) int {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		fmt.Fprintf(stderr, "shoal: %s is not installed beside shoal: no executable %s (install it next to %s)\n",
			name, path, filepath.Dir(path))
		return 127
	}
	return 0
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
	if code := checkCompanion(name, path, stderr); code != 0 {
		return code
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
