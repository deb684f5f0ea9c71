package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var (
	probed   = sync.OnceValue(probeKernel)
	override atomic.Pointer[Support]
	// dispatching: this program called RunTrampolineIfRequested, so a
	// copy of it started as the trampoline will be one. Wrap refuses
	// without it: the copy would run the program itself instead (a test
	// binary would run its tests again, recursively).
	dispatching atomic.Bool
)

// ErrNoTrampoline is Wrap's refusal in a program that never called
// RunTrampolineIfRequested (call it first thing in main, or in TestMain).
var ErrNoTrampoline = errors.New("sandbox: this program cannot be its own trampoline: it never called sandbox.RunTrampolineIfRequested")

// Probe reports what this machine's kernel can enforce. It is measured
// once and cached; it never fails: when FS or Net is false, Reason says
// why.
func Probe() Support {
	if s := override.Load(); s != nil {
		return *s
	}
	return probed()
}

// OverrideSupport makes Probe (and so Wrap) report s until the returned
// restore is called: for tests that need a machine without some
// dimension. The trampoline itself always measures the real kernel, so an
// override can make Wrap refuse or drop a dimension, never pretend one is
// enforced.
func OverrideSupport(s Support) (restore func()) {
	prev := override.Swap(&s)
	return func() { override.Store(prev) }
}

// selfExe is the program Wrap starts as the trampoline: this very
// executable. On Linux that is /proc/self/exe, which the child resolves
// when it execs, to the image this process runs even if the file has
// since been replaced or removed; elsewhere the path os.Executable gives.
var selfExe = sync.OnceValues(func() (string, error) {
	const proc = "/proc/self/exe"
	if _, err := os.Stat(proc); err == nil {
		return proc, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: cannot find this program to run as the trampoline: %w", err)
	}
	return p, nil
})

// Exit statuses of a trampoline that cannot run the target, as a shell
// reports a program it cannot execute or find.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

// RunTrampolineIfRequested is called first thing in main() of
// shoal-kernel (and of a test binary's TestMain); when the process was
// started as a trampoline (argv[1] is TrampolineCommand) it applies the
// rules and execs the target, and never returns. Otherwise it returns at
// once.
//
// A trampoline that cannot do its work writes one line starting
// "shoal-sandbox:" to its standard error and exits 126 (127 when the
// target does not exist): bad encoded rules, hermetic rules this kernel
// cannot enforce, a Landlock call that fails, or an exec that fails. It
// never runs the target less confined than the rules say, except where
// they are not hermetic and the kernel lacks a dimension.
func RunTrampolineIfRequested() {
	dispatching.Store(true)
	if len(os.Args) < 2 || os.Args[1] != TrampolineCommand {
		return
	}
	os.Exit(trampoline(os.Args[2:]))
}

// trampoline is the trampoline's work after the marker; it returns only
// on failure, with the exit status.
func trampoline(args []string) int {
	fail := func(status int, err error) int {
		fmt.Fprintf(os.Stderr, "shoal-sandbox: %v\n", err)
		return status
	}
	if len(args) < 3 || args[1] != "--" {
		return fail(exitCannotRun, errors.New("usage: "+TrampolineCommand+" RULES -- PROGRAM [ARGS...]"))
	}
	r, hiddenEnv, err := decode(args[0])
	if err != nil {
		return fail(exitCannotRun, err)
	}
	argv := args[2:]
	s := probed()
	if r, err = enforceable(r, s); err != nil {
		return fail(exitCannotRun, err)
	}
	if err := apply(r, s.ABI); err != nil {
		return fail(exitCannotRun, err)
	}
	env := os.Environ()
	if hiddenEnv {
		env = revealEnv(env)
	}
	err = unix.Exec(argv[0], argv, env)
	status := exitCannotRun
	if errors.Is(err, unix.ENOENT) {
		status = exitNotFound
	}
	return fail(status, fmt.Errorf("exec %s: %w", argv[0], err))
}
