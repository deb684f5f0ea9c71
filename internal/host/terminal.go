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
// terminal back from a foreground child is done from the background, which
// the terminal would otherwise answer with SIGTTOU (a shell does the
// same). The disposition must be an ignore, not a caught handler: the
// kernel restarts a tcsetpgrp interrupted by a caught SIGTTOU, forever.
var ignoreTTOU sync.Once

// ErrJobEnded is returned by TerminalJob.Foreground once the job's
// process has been reaped.
var ErrJobEnded = errors.New("job has ended")

// RunTerminal runs s.Argv (proc_spawn, like Run) in the foreground of the
// terminal open on descriptor tty: the child's stdin, stdout and stderr are
// that terminal, so full-screen and prompting programs work, and nothing is
// captured (s's Stdin, streams and capture settings are ignored). While it
// runs the terminal's keys signal the child's process group, not the
// caller's (Ctrl-C stops the child, as in a shell); when it ends the
// caller's group gets the terminal back. Cancelling ctx ends the group as
// Run does.
//
// A child that stops (Ctrl-Z sends SIGTSTP to the foreground group; the
// wait uses WUNTRACED to see it) is not continued: the caller's group gets
// the terminal and its modes back, and the result carries the stopped job
// (Result.Stopped), which no longer answers to ctx. Its owner waits for it
// with TerminalJob.Wait and may give it the terminal again (Foreground) or
// let it run in the background (its ProcessGroup's Resume). It stays in
// this host's process scope, so it ends with the session like any child.
func (o *OS) RunTerminal(ctx context.Context, s *Spawn, tty int) (*Result, error) {
	prog, conf, env, err := o.prepareSpawn(ctx, s)
	if err != nil {
		return nil, err
	}
	defer conf.Close()
	if _, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP); err != nil {
		return nil, fmt.Errorf("run %s: descriptor %d is not a terminal: %w", prog, tty, err)
	}
	// A duplicate, so that closing the *os.File never closes the caller's
	// descriptor; the job keeps it until its child is reaped. Close-on-exec,
	// so that neither this child (which gets it as 0, 1 and 2) nor any other
	// command started meanwhile inherits one more descriptor of the terminal.
	dup, err := unix.FcntlInt(uintptr(tty), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", prog, err)
	}
	term := os.NewFile(uintptr(dup), "tty")
	ignoreTTOU.Do(func() { signal.Ignore(syscall.SIGTTOU) })
	shellMode, _ := unix.IoctlGetTermios(dup, ioctlGetTermios)

	cmd := &exec.Cmd{
		Path: prog, Args: s.Argv, Env: env, Dir: s.Dir,
		Stdin: term, Stdout: term, Stderr: term,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: tty},
	}
	start := time.Now()
	proc, err := o.procs.StartOn(onThread(conf), cmd)
	if err != nil {
		term.Close()
		takeTerminal(tty)
		return nil, fmt.Errorf("run: %w", err)
	}
	j := &TerminalJob{
		g: &group{proc: proc, grace: o.killGrace}, pid: cmd.Process.Pid, prog: prog,
		tty: term, start: start, held: true, shellMode: shellMode, proc: cmd.Process,
	}
	release := reportGroup(ctx, j.g)
	res, stopped, err := j.Wait(ctx)
	release()
	if err != nil {
		return nil, err
	}
	if stopped {
		return &Result{Pid: j.pid, Dur: time.Since(start), Stopped: j}, nil
	}
	return res, nil
}

// TerminalJob is a process group RunTerminal started on a terminal and
// that stopped there: a shell's stopped job. Exactly one goroutine at a
// time may Wait for it; Foreground and the ProcessGroup may be used from
// any goroutine.
type TerminalJob struct {
	g     *group
	pid   int
	prog  string
	tty   *os.File // the job's duplicate of the terminal, closed once reaped
	start time.Time
	proc  *os.Process // released once reaped (by the job's own Wait4)

	mu        sync.Mutex
	held      bool          // the job's group is the terminal's foreground
	ended     bool          // reaped
	jobMode   *unix.Termios // the terminal's modes when the job last stopped
	shellMode *unix.Termios // the caller's modes, restored when the job stops
}

// Pid is the job's process (and process group) id.
func (j *TerminalJob) Pid() int { return j.pid }

// Group is the job's process group, for stopping and continuing it.
func (j *TerminalJob) Group() ProcessGroup { return ProcessGroup{j.g} }

// Wait waits until the job stops or ends. On a stop, stopped is true and
// the caller's group has the terminal (if the job had it); on an end, res
// is the outcome (status or signal, nothing captured), the terminal is
// given back, and the job's resources are released. Cancelling ctx ends
// the job's whole tree (SIGTERM, SIGCONT, SIGKILL after the host's grace)
// and Wait returns once it is reaped; a stop seen while cancelling is not
// reported.
func (j *TerminalJob) Wait(ctx context.Context) (res *Result, stopped bool, err error) {
	stop := context.AfterFunc(ctx, j.g.cancel)
	defer stop()
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(j.pid, &ws, unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			j.end()
			return nil, false, fmt.Errorf("run %s: wait: %w", j.prog, err)
		}
		if ws.Stopped() {
			if j.g.isCancelled() {
				continue // the kill that follows will end it
			}
			j.reclaim()
			return nil, true, nil
		}
		break
	}
	j.end()
	res = &Result{Pid: j.pid, Dur: time.Since(j.start)}
	if ws.Signaled() {
		res.Signal = signalName(syscall.Signal(ws.Signal()))
	} else {
		code := ws.ExitStatus()
		res.Status = &code
	}
	return res, false, nil
}

// Foreground gives the job the terminal, with the modes it had when it
// stopped, and continues it (SIGCONT). The caller's modes are saved and
// come back when the job stops or ends, as its group does.
func (j *TerminalJob) Foreground() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return ErrJobEnded
	}
	if !j.held {
		fd := int(j.tty.Fd())
		j.shellMode, _ = unix.IoctlGetTermios(fd, ioctlGetTermios)
		if j.jobMode != nil {
			_ = unix.IoctlSetTermios(fd, ioctlSetTermios, j.jobMode)
		}
		if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, j.pid); err != nil {
			return fmt.Errorf("fg %s: giving it the terminal: %w", j.prog, err)
		}
		j.held = true
	}
	return j.g.signal(unix.SIGCONT)
}

// Reclaim takes the terminal back from the job if it has it (the job
// keeps running, in the background).
func (j *TerminalJob) Reclaim() { j.reclaim() }

// reclaim gives the caller's group the terminal and its modes back, if
// the job has it, keeping the job's modes for its next Foreground.
func (j *TerminalJob) reclaim() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.held || j.ended {
		return
	}
	j.held = false
	fd := int(j.tty.Fd())
	j.jobMode, _ = unix.IoctlGetTermios(fd, ioctlGetTermios)
	takeTerminal(fd)
	if j.shellMode != nil {
		_ = unix.IoctlSetTermios(fd, ioctlSetTermios, j.shellMode)
	}
}

// end runs once the child has been reaped: the terminal comes back, the
// group is finished (its remaining tree swept) and the descriptor closed.
func (j *TerminalJob) end() {
	j.reclaim()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return
	}
	j.ended = true
	j.g.finish()
	_ = j.proc.Release()
	_ = j.tty.Close()
}

// isCancelled reports whether the group's cancellation has begun.
func (g *group) isCancelled() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cancelled
}

// takeTerminal makes the caller's process group the terminal's foreground
// again.
func takeTerminal(tty int) {
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
}
