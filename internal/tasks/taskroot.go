package tasks

import (
	"context"
	"time"
)

// taskRoot is the root of a task's work context: a context.Background
// that also answers taskKey with its task. It lives inside the Task, so
// the context a task is registered with costs one allocation fewer than
// context.WithValue(context.Background(), taskKey{}, t) did; it is never
// cancelled (Done is nil), so the cancelCtx made over it needs no
// goroutine to follow it, as over Background.
type taskRoot struct{ t *Task }

func (taskRoot) Deadline() (time.Time, bool) { return time.Time{}, false }
func (taskRoot) Done() <-chan struct{}       { return nil }
func (taskRoot) Err() error                  { return nil }

func (r *taskRoot) Value(key any) any {
	if _, ok := key.(taskKey); ok {
		return r.t
	}
	return nil
}

func (r *taskRoot) String() string { return "tasks.root(" + formatID(r.t.seq) + ")" }

var _ context.Context = (*taskRoot)(nil)
