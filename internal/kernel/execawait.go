package kernel

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// An exec with timeout_ms runs as a foreground task on the goroutine that
// leads its request, as a synchronous exec does, rather than on a
// goroutine of its own that the request's goroutine waits for: that
// hand-off (a goroutine started, and a wake-up of the waiter when it
// ends) cost the MCP facade's every shoal_exec about a seventh of a
// plain exec. What timeout_ms promises is kept by a timer: when it fires
// before the work ends, it detaches the task into a retained one and
// answers the request in its place — a running task the caller can await
// or cancel, timed_out set — leaves the exec's turn in its session, and
// gives back the request's holds (its context, its session hold, its
// running slot), while the work goes on as the task on the request's
// goroutine, which answers nothing when it is done. Which of the two
// answers is decided by Detach: it fails once the work has finished.
// The connection's reading is handed over as for any request that leads
// (lead.go), so a task.cancel sent meanwhile is read. The ending of the
// request's context (the connection closing, the attachment cut)
// detaches the task too, as the waiter's giving up did before.

// answeredElsewhere is a handler's result when its call was answered, and
// its holds given back, by another goroutine: run does neither.
type answeredElsewhere struct{}

// awaitedExec is the timer side of an exec with timeout_ms.
type awaitedExec struct {
	c       *call
	t       *tasks.Task
	timer   *time.Timer
	unwatch func() bool
	fired   atomic.Bool
}

// runAwaited runs the exec p, whose timeout_ms is set, on this goroutine
// as a foreground task. Its answer is the exec's own when the work ends
// within timeout_ms, and answeredElsewhere when the timer (or the
// request's context ending) answered first with the task that the work
// goes on as.
func (c *call) runAwaited(ctx context.Context, p *execParams) (any, error) {
	srv, sess, tr := c.conn.srv, c.att.sess, c.turn
	a := &awaitedExec{c: c}
	timeout := time.Duration(p.TimeoutMS) * time.Millisecond
	inner := srv.execWork(sess, c.att, p, tr)
	work := func(tctx context.Context) (any, error) {
		// Armed once the task is registered and its first record
		// published, before the work starts: as StartForeground's waiter
		// armed its timer once the task had started.
		a.arm(ctx, tctx, timeout)
		return inner(tctx)
	}
	// Never stopped from outside: a waiter that gives up detaches the task
	// (expire) rather than cancel it.
	t, err := sess.tasks.RunForeground(context.Background(), sess.owner(), p.Src, work)
	if err != nil {
		tr.leave()
		if denied := exceededDenied(err); denied != nil {
			return nil, denied // foreground_tasks
		}
		return nil, proto.NewError(proto.CodeInternalError, "cannot start task: "+err.Error(), nil)
	}
	a.disarm()
	if !t.Record().Foreground {
		// Detached by expire, which answered: the task is retained, and
		// what it printed stays for task.output.
		return answeredElsewhere{}, nil
	}
	srv.forgetTaskOutput(sess, t) // no record is left to ask about
	return c.execFrame(execAnswer(t))
}

// arm starts the timeout of the task whose work context is tctx, and
// detaches it when ctx (the request's) ends first.
func (a *awaitedExec) arm(ctx, tctx context.Context, timeout time.Duration) {
	t, ok := tasks.Current(tctx)
	if !ok {
		return // not reached: the work runs as a task
	}
	a.t = t
	a.c.att.bindTask(a.c.att.sess, t)
	a.timer = time.AfterFunc(timeout, a.expire)
	a.unwatch = context.AfterFunc(ctx, a.expire)
}

// disarm stops the timer and the watch of the request's context once the
// work has ended. One of them may be running expire meanwhile: it finds
// the task finished and does nothing.
func (a *awaitedExec) disarm() {
	if a.timer != nil {
		a.timer.Stop()
		a.unwatch()
	}
}

// expire ends the wait for the task: once, and only while its work runs,
// it detaches the task and answers the request with it, then gives the
// request's turn and holds back. The work, which goes on as the task,
// answers nothing.
func (a *awaitedExec) expire() {
	if !a.fired.CompareAndSwap(false, true) {
		return
	}
	if !a.t.Detach() {
		return // it has finished: its goroutine answers
	}
	c := a.c
	// Once the exec turns into a task it holds its session's order no
	// longer: the next request goes on beside it.
	c.turn.leave()
	res, err := c.execFrame(started(a.t, true), nil)
	c.conn.finish(c, res, err)
	if c.slotted {
		c.conn.releaseSlot()
	}
}
