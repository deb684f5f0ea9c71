package eval

// Terminal jobs: an external command run in the terminal's foreground
// (runOnTerminal) that the user stops with Ctrl-Z becomes a stopped task
// of the session, listed by `jobs`. `fg` gives it the terminal again and
// waits for it until it ends or stops again; `bg` continues it in the
// background; `kill %N` and the session's end end its whole tree. The
// task's goroutine is the job's only waiter (host.TerminalJob.Wait): it
// marks the task stopped whenever the process stops, and finishes it with
// the command's outcome when it ends.

import (
	"context"
	"fmt"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// terminalJob is the stopped terminal command tk stands for, or nil.
func (tk *Task) terminalJob() *host.TerminalJob {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.term
}

// parkTerminal makes job, which stopped in the terminal's foreground, a
// stopped task of the session and tells the terminal so. A session at its
// task bound cannot keep it: the job is ended and the bound's error
// returned.
func (t *thread) parkTerminal(name string, args []string, argv []string, job *host.TerminalJob) (*Task, error) {
	desc := displayCmd(name, args)
	tk, err := t.startJob(desc, false, func(c *thread) (value.Value, error) {
		return c.waitTerminal(desc, argv, job)
	})
	if err != nil {
		ctx, cancel := context.WithCancel(context.WithoutCancel(t.ctx))
		cancel()
		_, _, _ = job.Wait(ctx) // ends and reaps it
		return nil, err
	}
	// Its group is the task's from now on, so that bg, suspend and
	// resume reach it even before the task's goroutine runs.
	tk.groupHook(t.ctx, job.Group())
	tk.mu.Lock()
	tk.term, tk.suspended = job, true
	tk.mu.Unlock()
	t.jobNotice(tk, "stopped")
	return tk, nil
}

// jobNotice writes a shell's job line, `[1]  stopped  sleep 30`, to the
// thread's stderr (the REPL's terminal).
func (t *thread) jobNotice(tk *Task, state string) {
	fmt.Fprintf(t.stderr, "[%d]  %s  %s\n", tk.JobNumber(), state, tk.desc)
}

// waitTerminal is a terminal job's task body: it waits for the job
// without the session lock, marking the task stopped at each stop, until
// the job ends (its outcome) or the task is cancelled (which ends the
// job's tree first).
func (c *thread) waitTerminal(desc string, argv []string, job *host.TerminalJob) (value.Value, error) {
	defer c.task.dropGroup(job.Group())
	for {
		var res *host.Result
		var stopped bool
		var err error
		c.unlocked(func() { res, stopped, err = job.Wait(c.ctx) })
		if err != nil {
			return nil, hostError(err)
		}
		if stopped {
			c.task.stoppedOnTerminal()
			continue
		}
		if err := c.ctx.Err(); err != nil {
			return nil, hostError(err)
		}
		return &value.Outcome{Cmd: desc, Argv: argv, Status: res.Status, Signal: res.Signal, Pid: res.Pid, Dur: res.Dur}, nil
	}
}

// dropGroup forgets pg once its child has been reaped.
func (tk *Task) dropGroup(pg host.ProcessGroup) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for g := range tk.groups {
		if g.pg == pg {
			delete(tk.groups, g)
		}
	}
}

// stoppedOnTerminal records that the job's process stopped (Ctrl-Z while
// in the foreground, SIGTTIN reading the terminal from the background, a
// signal) and wakes an `fg` waiting for it.
func (tk *Task) stoppedOnTerminal() {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.suspended = true
	if tk.fgStop != nil {
		close(tk.fgStop)
		tk.fgStop = nil
	}
}

// foregroundTerminal is `fg` of a terminal job: the job gets the terminal
// and runs; fg waits until it ends (its outcome, as await gives it) or
// stops again (back to the prompt, the job listed stopped).
func (t *thread) foregroundTerminal(tk *Task) (value.Value, error) {
	if t.task != nil {
		return nil, errorf(codeNoTerminal, "fg: a background task cannot take the terminal")
	}
	tk.mu.Lock()
	job := tk.term
	if tk.finished {
		tk.mu.Unlock()
		return t.await(tk)
	}
	stopped := make(chan struct{})
	tk.fgStop = stopped
	tk.suspended = false
	_ = tk.pause.Resume()
	err := job.Foreground()
	tk.mu.Unlock()
	if err != nil && err != host.ErrJobEnded {
		return nil, hostError(err)
	}
	t.jobNotice(tk, "continued")
	var werr error
	t.unlocked(func() {
		select {
		case <-tk.done:
		case <-stopped:
		case <-t.ctx.Done():
			job.Reclaim()
			werr = hostError(t.ctx.Err())
		}
	})
	if werr != nil {
		return nil, werr
	}
	select {
	case <-tk.done:
		return t.await(tk)
	default:
	}
	if tk.state() == "stopped" {
		t.jobNotice(tk, "stopped")
	}
	return value.Nil, nil
}
