package eval

import (
	"context"
	"time"
)

// A computing evaluation runs no Go code that parks, so nothing else
// runs on its processor until the runtime preempts it (10 ms): the Go
// timers due there wait as long, the kernel's hand-over of a
// connection's reading among them (docs/performance.md, "exec "1 + 1" on
// the new machine"). An evaluation given a compute hook (WithLeadHooks)
// calls it from its checkpoints once it has computed for ComputeHookEvery
// since it last did, so the kernel can look at its request's age on the
// evaluation's own goroutine, with no timer.

// ComputeHookEvery is how long an evaluation with a compute hook computes
// between two calls of it.
const ComputeHookEvery = 500 * time.Microsecond

// computeHookTicks is how many checkpoints pass between two looks at the
// clock for ComputeHookEvery.
const computeHookTicks = 256

type leadHooksKey struct{}

// LeadHooks are an evaluation's two looks at the request it runs for
// (the kernel's hand-over of a connection's reading, docs/kernel.md):
// Compute is called from its checkpoints once it has computed for
// ComputeHookEvery since it last was (or since it started looking at the
// clock), Wait before each wait that can block (every place the
// evaluation gives the session lock up: a process, sleep, a channel or
// stream, a task, a pause, the lock itself) and before BeforeWait's
// callers wait. Either may be nil. Both run on the evaluating
// goroutine, must return promptly, and may be called from several threads
// of one evaluation at once.
type LeadHooks struct {
	Compute, Wait func()
}

// WithLeadHooks returns a context under which evaluations started with
// Eval (and every thread they start) call h's hooks. h is not copied: a
// caller may make it once and pass it to many evaluations.
func WithLeadHooks(ctx context.Context, h *LeadHooks) context.Context {
	return context.WithValue(ctx, leadHooksKey{}, h)
}

func leadHooksFrom(ctx context.Context) *LeadHooks {
	h, _ := ctx.Value(leadHooksKey{}).(*LeadHooks)
	return h
}

// BeforeWait calls ctx's wait hook (WithLeadHooks), if it has one: work
// done for an evaluation outside it (the kernel's wait for a request's
// turn) calls it before it blocks.
func BeforeWait(ctx context.Context) {
	if h := leadHooksFrom(ctx); h != nil && h.Wait != nil {
		h.Wait()
	}
}

// computeEpoch is the origin of computeNow.
var computeEpoch = time.Now()

// computeNow is the time since computeEpoch on the monotonic clock.
func computeNow() int64 { return int64(time.Since(computeEpoch)) }

// computeCheck calls the thread's compute hook, if it has one, once it
// has computed for ComputeHookEvery, reading the clock every
// computeHookTicks checkpoints (a thread reused by a later evaluation may
// call it once early).
func (t *thread) computeCheck() {
	if t.hook == nil {
		return
	}
	if t.hookTicks++; t.hookTicks < computeHookTicks {
		return
	}
	t.hookTicks = 0
	now := computeNow()
	if t.hookSince == 0 {
		t.hookSince = now
		return
	}
	if time.Duration(now-t.hookSince) < ComputeHookEvery {
		return
	}
	t.hook()
	t.hookSince = computeNow()
}
