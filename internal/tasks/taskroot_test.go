package tasks

import (
	"context"
	"runtime"
	"testing"
)

type otherKey struct{}

// TestTaskRootContext: a task's work context carries its task (and no
// other value), is cancelled with the task, and contexts derived from it
// are cancelled with it without a goroutine each following it.
func TestTaskRootContext(t *testing.T) {
	noLeaks(t)
	r := New()
	got := make(chan struct{})
	var before, during int
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		if tk, _ := ctx.Value(taskKey{}).(*Task); tk == nil {
			t.Error("the work context does not carry its task")
		}
		if ctx.Value(otherKey{}) != nil {
			t.Error("the work context answers a key it was not given")
		}
		before = runtime.NumGoroutine()
		kids := make([]context.Context, 100)
		for i := range kids {
			var cancel context.CancelCauseFunc
			kids[i], cancel = context.WithCancelCause(context.WithValue(ctx, otherKey{}, i))
			defer cancel(nil)
		}
		during = runtime.NumGoroutine()
		close(got)
		for _, k := range kids {
			<-k.Done()
		}
		return nil, ctx.Err()
	})
	<-got
	if during > before+5 {
		t.Errorf("100 derived contexts started %d goroutines", during-before)
	}
	if _, err := r.Cancel(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	<-task.Done() // every derived context was cancelled with the task
	if rec := task.Record(); rec.State != Cancelled {
		t.Errorf("state %s, want cancelled", rec.State)
	}
}
