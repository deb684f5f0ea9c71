package tasks

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunForegroundOnCaller: RunForeground runs the work on the calling
// goroutine, listed as a foreground task while it runs and cancellable by
// its owner from elsewhere; it returns with the task terminal, Done
// closed and the task no longer retained.
func TestRunForegroundOnCaller(t *testing.T) {
	noLeaks(t)
	r := New()
	g := newGate()
	type out struct {
		task *Task
		err  error
	}
	res := make(chan out, 1)
	go func() {
		task, err := r.RunForeground(context.Background(), alice, "while true { }", g.work("never"))
		res <- out{task, err}
	}()
	<-g.started
	list := r.List(alice)
	if len(list) != 1 || !list[0].Foreground || list[0].State != Running {
		t.Fatalf("List = %+v, want the running foreground task", list)
	}
	if rec, err := r.Cancel(alice, list[0].Task); err != nil || rec.State != Cancelling {
		t.Fatalf("Cancel = %+v, %v", rec, err)
	}
	var o out
	select {
	case o = <-res:
	case <-time.After(10 * time.Second):
		t.Fatal("RunForeground did not return after Cancel")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	select {
	case <-o.task.Done():
	default:
		t.Fatal("RunForeground returned before Done was closed")
	}
	if st := o.task.Record().State; st != Cancelled {
		t.Fatalf("state %s, want cancelled", st)
	}
	if got := r.List(alice); len(got) != 0 {
		t.Fatalf("List after it finished = %+v, want empty", got)
	}
}

// TestRunForegroundStop: the caller's context ending cancels the task; a
// finished one answers with the work's value.
func TestRunForegroundStop(t *testing.T) {
	noLeaks(t)
	r := New()
	ctx, cancel := context.WithCancel(context.Background())
	g := newGate()
	go func() { <-g.started; cancel() }()
	task, err := r.RunForeground(ctx, alice, "x", g.work("never"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, werr := task.Result(); !ok || !errors.Is(werr, context.Canceled) || task.Record().State != Cancelled {
		t.Fatalf("after stop: ok=%v err=%v state %s, want cancelled", ok, werr, task.Record().State)
	}
	done := newGate()
	close(done.release)
	task, err = r.RunForeground(context.Background(), alice, "y", done.work(42))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, werr := task.Result(); !ok || werr != nil || v != 42 || task.Record().State != Completed {
		t.Fatalf("Result = %v, %v, %v; state %s", v, ok, werr, task.Record().State)
	}
	_ = r.Close(context.Background())
	if _, err := r.RunForeground(context.Background(), alice, "z", done.work(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}
