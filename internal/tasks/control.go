package tasks

import (
	"context"
	"errors"
	"fmt"
)

// Suspender stops and continues what a task's work is running, typically
// by sending SIGSTOP and SIGCONT to a process group. The kernel supplies
// it; this package makes no system calls. A Suspender whose processes have
// already exited should return nil.
type Suspender interface {
	Suspend() error
	Resume() error
}

// RegisterSuspender attaches s to the task whose work context is ctx, for
// as long as the process it controls lives: call release when it ends. If
// the task is suspended at that moment, s is suspended at once. Outside a
// task context it does nothing and reports false.
func RegisterSuspender(ctx context.Context, s Suspender) (release func(), ok bool) {
	t, _ := ctx.Value(taskKey{}).(*Task)
	if t == nil || s == nil {
		return func() {}, false
	}
	c := &t.ctl
	c.mu.Lock()
	defer c.mu.Unlock()
	key := c.suspenders.add(s)
	if c.stopped {
		_ = s.Suspend()
	}
	return func() {
		c.mu.Lock()
		c.suspenders.remove(key)
		c.mu.Unlock()
	}, true
}

// OutputSource reports what a running task's work has printed so far: the
// text kept (its tail is what matters), the bytes printed in all, and
// whether the text is cut. It must be safe to call from any goroutine.
type OutputSource func() (text string, total int64, truncated bool)

// RegisterOutput makes src the printed-so-far of the task whose work
// context is ctx, until release (or the task ends). Outside a task
// context it does nothing and reports false.
func RegisterOutput(ctx context.Context, src OutputSource) (release func(), ok bool) {
	t, _ := ctx.Value(taskKey{}).(*Task)
	if t == nil || src == nil {
		return func() {}, false
	}
	c := &t.ctl
	c.mu.Lock()
	c.output = src
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.output = nil
		c.mu.Unlock()
	}, true
}

// Output reports what the caller's running task has printed so far; ok
// is false when the task is not running or registered no OutputSource.
// It fails with ErrUnknownTask for a task the caller cannot see.
func (r *Registry) Output(owner Owner, id string) (text string, total int64, truncated, ok bool, err error) {
	t, err := r.Lookup(owner, id)
	if err != nil {
		return "", 0, false, false, err
	}
	c := &t.ctl
	c.mu.Lock()
	src := c.output
	c.mu.Unlock()
	if src == nil || t.Record().State != Running {
		return "", 0, false, false, nil
	}
	text, total, truncated = src()
	return text, total, truncated, true, nil
}

// Suspend stops the caller's running task through its Suspenders. It
// fails with ErrUnknownTask for a task the caller cannot see, and with
// ErrControlUnavailable when the task is not running or registered no
// Suspender. Suspending a suspended task changes nothing.
func (r *Registry) Suspend(owner Owner, id string) (Record, error) {
	return r.control(owner, id, true)
}

// Resume continues the caller's suspended task; the errors are those of
// Suspend. Resuming a task that is not suspended changes nothing.
func (r *Registry) Resume(owner Owner, id string) (Record, error) {
	return r.control(owner, id, false)
}

func (r *Registry) control(owner Owner, id string, stop bool) (Record, error) {
	t, err := r.Lookup(owner, id) // ownership first
	if err != nil {
		return Record{}, err
	}
	verb := "resume"
	if stop {
		verb = "suspend"
	}
	c := &t.ctl
	c.mu.Lock()
	rec := t.Record()
	if rec.State != Running || c.suspenders.len() == 0 {
		c.mu.Unlock()
		return rec, fmt.Errorf("%s %s: %w", verb, id, ErrControlUnavailable)
	}
	if rec.Suspended == stop {
		c.mu.Unlock()
		return rec, nil
	}
	var errs []error
	c.suspenders.each(func(s Suspender) {
		var err error
		if stop {
			err = s.Suspend()
		} else {
			err = s.Resume()
		}
		if err != nil {
			errs = append(errs, err)
		}
	})
	// Resume continues whatever was stopped even if one signal failed;
	// Suspend counts as done unless every Suspender failed.
	changed := !stop || len(errs) < c.suspenders.len()
	if changed {
		c.stopped = stop
	}

	drain := false
	r.mu.Lock()
	if changed && t.rec.State == Running {
		t.rec.Suspended = stop
		drain = t.notifyLocked()
	}
	rec = t.rec
	r.mu.Unlock()
	c.mu.Unlock()
	if drain {
		t.drain()
	}
	if len(errs) > 0 {
		return rec, fmt.Errorf("%s %s: %w", verb, id, errors.Join(errs...))
	}
	return rec, nil
}
