package tasks

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
)

// Task is one unit of background work. Its accessors are safe for
// concurrent use.
type Task struct {
	r      *Registry
	seq    uint64
	owner  Owner
	cancel context.CancelFunc
	done   chan struct{} // closed after the terminal OnChange call
	root   taskRoot      // its work context's root (taskroot.go)

	// Guarded by r.mu.
	rec      Record
	value    any
	err      error
	pending  []Record // notifications not yet delivered
	draining bool     // some goroutine is delivering pending

	ctl control
}

// ID is the task's id, "task:N".
func (t *Task) ID() string { return formatID(t.seq) }

// Owner is the (principal, session) that started the task.
func (t *Task) Owner() Owner { return t.owner }

// Done is closed once the task is terminal and its last OnChange call has
// returned.
func (t *Task) Done() <-chan struct{} { return t.done }

// Record returns a snapshot of the task.
func (t *Task) Record() Record {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.rec
}

// Result returns what the work returned; ok is false (and v, err nil)
// until the task is terminal.
func (t *Task) Result() (v any, ok bool, err error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if !t.rec.State.Terminal() {
		return nil, false, nil
	}
	return t.value, true, t.err
}

type taskKey struct{}

// run executes the work, then settles the task's final state.
func (t *Task) run(ctx context.Context, work Work) {
	v, err := callWork(ctx, work)
	t.ctl.clear()

	r := t.r
	r.mu.Lock()
	finish := r.onFinish
	r.mu.Unlock()
	var ref string
	if finish != nil {
		ref = callFinish(finish, t, v, err)
	}

	r.mu.Lock()
	switch {
	case t.rec.State == Cancelling, errors.Is(err, ErrCancelled):
		// Cancelled through the registry, or the work says it was
		// cancelled another way (a language task's `kill %N`).
		t.rec.State = Cancelled
		t.rec.Err = ErrCancelled
	case err != nil:
		t.rec.State = Failed
		t.rec.Err = err
	default:
		t.rec.State = Completed
	}
	t.rec.FinishedNs = r.now().UnixNano()
	t.rec.ResultRef = ref
	t.rec.Suspended = false
	t.value, t.err = v, err
	r.retireLocked(t)
	drain := t.notifyLocked()
	r.mu.Unlock()

	t.cancel() // release the context's resources
	if drain {
		t.drain()
	}
}

// requestCancel moves a running task to cancelling and cancels its
// context; otherwise it only reports the record.
func (t *Task) requestCancel() Record {
	r := t.r
	r.mu.Lock()
	if t.rec.State != Running {
		rec := t.rec
		r.mu.Unlock()
		return rec
	}
	t.rec.State = Cancelling
	t.rec.Suspended = false
	rec := t.rec
	drain := t.notifyLocked()
	r.mu.Unlock()

	// Continue stopped processes first (while their Suspenders are still
	// registered): a stopped process cannot act on SIGTERM.
	t.ctl.continueAll()
	t.cancel()
	if drain {
		t.drain()
	}
	return rec
}

// notifyLocked queues a snapshot for OnChange and reports whether the
// caller must deliver the queue (no one else is doing so).
func (t *Task) notifyLocked() bool {
	t.pending = append(t.pending, t.rec)
	if t.draining {
		return false
	}
	t.draining = true
	return true
}

// drain delivers queued notifications in order until none is left. Only one
// goroutine drains a task at a time, which keeps its notifications ordered
// without holding the lock during the hook.
func (t *Task) drain() {
	r := t.r
	for {
		r.mu.Lock()
		if len(t.pending) == 0 {
			t.pending = nil
			t.draining = false
			r.mu.Unlock()
			return
		}
		rec := t.pending[0]
		t.pending[0] = Record{}
		t.pending = t.pending[1:]
		hook := r.onChange
		r.mu.Unlock()
		if hook != nil {
			callHook(hook, rec)
		}
		if rec.State.Terminal() {
			close(t.done)
		}
	}
}

func callWork(ctx context.Context, work Work) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return work(ctx)
}

// callFinish and callHook contain a panicking hook so that the task's
// bookkeeping (and Done) still completes.
func callFinish(f FinishFunc, t *Task, v any, err error) (ref string) {
	defer func() { _ = recover() }()
	return f(t, v, err)
}

func callHook(f func(Record), rec Record) {
	defer func() { _ = recover() }()
	f(rec)
}

// control holds the Suspenders a task's work registered. Its mutex orders
// suspend, resume and continue-on-cancel; it is taken before r.mu, never
// while holding it.
type control struct {
	mu         sync.Mutex
	suspenders suspenderSet
	stopped    bool         // a Suspend was sent and no Resume/continue since
	output     OutputSource // what the work has printed so far; nil: none
}

func (c *control) clear() {
	c.mu.Lock()
	c.suspenders.reset()
	c.output = nil
	c.stopped = false
	c.mu.Unlock()
}

// continueAll resumes stopped processes so they can act on cancellation.
func (c *control) continueAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		return
	}
	c.stopped = false
	c.suspenders.each(func(s Suspender) { _ = s.Resume() })
}

// Detach turns t, a foreground task still running, into a retained one,
// as if Start had begun it: its waiter has stopped waiting (an exec's
// timeout_ms elapsed), so its record must outlive it for task.get and
// task.await. It counts as a live task from then on; the bound it
// counted against while foreground (MaxForeground) already admitted it,
// so no owner holds more than MaxLive + MaxForeground live tasks. Detach
// reports false when t has already finished (its waiter has the result
// and its id is unknown); a task that is not foreground reports true.
func (t *Task) Detach() bool {
	r := t.r
	r.mu.Lock()
	if !t.rec.Foreground {
		r.mu.Unlock()
		return true
	}
	ot := r.owners[t.owner]
	if ot == nil || ot.live[t.seq] != t {
		r.mu.Unlock()
		return false
	}
	t.rec.Foreground = false
	ot.foreground--
	drain := t.notifyLocked()
	r.mu.Unlock()
	if drain {
		t.drain()
	}
	return true
}
