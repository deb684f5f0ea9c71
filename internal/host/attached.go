package host

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"github.com/shoalgo/shoal/internal/contain"
)

// StartAttached starts s.Argv as Run does, asking proc_spawn first and
// running it under the host's OS sandbox and in its containment scope,
// with exactly s.Env (nil means empty) and s.Dir, but with its standard
// streams and session attributes set by attach (package pty puts it on a
// pseudo-terminal) and without waiting for it: the caller owns the child
// and must reap it with Attached.Wait. A refused spawn starts nothing and
// returns the gate's error (a *DeniedError); s's Stdin, streams and
// capture settings are ignored.
func (o *OS) StartAttached(ctx context.Context, s *Spawn, attach func(*exec.Cmd)) (*Attached, error) {
	prog, conf, env, err := o.prepareSpawn(ctx, s)
	if err != nil {
		return nil, err
	}
	defer conf.Close()
	cmd := &exec.Cmd{Path: prog, Args: s.Argv, Env: env, Dir: s.Dir}
	attach(cmd)
	proc, err := o.procs.StartOn(onThread(conf), cmd)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", prog, err)
	}
	return &Attached{cmd: cmd, proc: proc}, nil
}

// Attached is a child StartAttached started. Its methods are safe for
// concurrent use; Wait is called once.
type Attached struct {
	cmd  *exec.Cmd
	proc *contain.Proc
}

// Pid is the child's pid.
func (a *Attached) Pid() int { return a.proc.Pid() }

// Wait waits for the child to exit and reaps it; from then on its pid is
// never signalled. A nonzero exit or a signal death is a status, not an
// error.
func (a *Attached) Wait() (syscall.WaitStatus, error) {
	err := a.cmd.Wait()
	a.proc.Reaped()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return 0, err
	}
	ws, _ := a.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, nil
}

// Signal sends sig to the child's whole tree: the child until it is
// reaped, its cgroup and every descendant (see contain.Proc.Signal).
func (a *Attached) Signal(sig syscall.Signal) { a.proc.Signal(sig) }

// Kill ends the child's whole tree with SIGKILL, what is left of it after
// the child was reaped included.
func (a *Attached) Kill() { a.proc.Kill() }
