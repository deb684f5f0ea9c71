package tasks

import (
	"context"
	"slices"
	"testing"
)

// TestRunForegroundThenDefersLastChange: RunForegroundThen returns with
// the task terminal (its result readable, no longer listed) before its
// last change reaches OnChange or closes Done; deliver does both, once.
func TestRunForegroundThenDefersLastChange(t *testing.T) {
	noLeaks(t)
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	done := newGate()
	close(done.release)
	task, deliver, err := r.RunForegroundThen(context.Background(), alice, "1 + 1", done.work(2))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, werr := task.Result(); !ok || werr != nil || v != 2 {
		t.Fatalf("Result before deliver = %v, %v, %v; want 2", v, ok, werr)
	}
	if got := r.List(alice); len(got) != 0 {
		t.Fatalf("List before deliver = %+v, want empty", got)
	}
	if got := rec.states(task.ID()); !slices.Equal(got, []string{"running"}) {
		t.Fatalf("changes before deliver = %v, want [running]", got)
	}
	select {
	case <-task.Done():
		t.Fatal("Done closed before deliver")
	default:
	}
	deliver()
	<-task.Done()
	if got := rec.states(task.ID()); !slices.Equal(got, []string{"running", "completed"}) {
		t.Fatalf("changes after deliver = %v, want [running completed]", got)
	}
	_ = r.Close(context.Background())
}
