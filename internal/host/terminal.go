package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ignoreTTOU makes the process immune to SIGTTOU, once: taking the
// terminal back from a finished foreground child is done from the
// background, which the terminal would otherwise answer with SIGTTOU (a
// shell does the same).
var ignoreTTOU sync.Once

// RunTerminal runs s.Argv (proc_spawn, like Run) in the foreground of the
// terminal open on descriptor tty: the child's stdin, stdout and stderr are
// that terminal, so full-screen and prompting programs work, and nothing is
// captured (s's Stdin, streams and capture settings are ignored). While it
// runs the terminal's keys signal the child's process group, not the
// caller's (Ctrl-C stops the child, as in a shell); when it ends the
// caller's group gets the terminal back. A child that stops itself (Ctrl-Z)
// is continued: this host offers no job control. Cancelling ctx ends the
// group as Run does.
func (o *OS) RunTerminal(ctx context.Context, s *Spawn, tty int) (*Result, error) {
	prog, err := o.checkSpawn(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP); err != nil {
		return nil, fmt.Errorf("run %s: descriptor %d is not a terminal: %w", prog, tty, err)
	}
	// A duplicate, so that closing the *os.File never closes the caller's
	// descriptor.
	dup, err := unix.Dup(tty)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", prog, err)
	}
	term := os.NewFile(uintptr(dup), "tty")
	defer term.Close()
	ignoreTTOU.Do(func() { signal.Ignore(syscall.SIGTTOU) })

	env := s.Env
	if env == nil {
		env = []string{}
	}
	cmd := &exec.Cmd{
		Path: prog, Args: s.Argv, Env: env, Dir: s.Dir,
		Stdin: term, Stdout: term, Stderr: term,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: tty},
	}
	start := time.Now()
	proc, err := o.procs.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	pid := cmd.Process.Pid
	g := &group{proc: proc, grace: o.killGrace}
	stop := context.AfterFunc(ctx, g.cancel)
	release := reportGroup(ctx, g)

	// Wait with WUNTRACED so that a stop is seen (exec.Cmd.Wait would
	// block until the stopped child was continued by someone else).
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			stop()
			release()
			g.finish()
			takeTerminal(tty)
			return nil, fmt.Errorf("run %s: wait: %w", prog, err)
		}
		if ws.Stopped() {
			_ = unix.Kill(-pid, unix.SIGCONT)
			continue
		}
		break
	}
	stop()
	release()
	g.finish()
	_ = cmd.Process.Release() // reaped above
	takeTerminal(tty)

	res := &Result{Pid: pid, Dur: time.Since(start)}
	if ws.Signaled() {
		res.Signal = signalName(syscall.Signal(ws.Signal()))
	} else {
		code := ws.ExitStatus()
		res.Status = &code
	}
	return res, nil
}

// takeTerminal makes the caller's process group the terminal's foreground
// again.
func takeTerminal(tty int) {
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
}
