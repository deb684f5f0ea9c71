package tasks

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestCancelHonouringWork(t *testing.T) {
	noLeaks(t)
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	g := newGate()
	task := mustStart(t, r, alice, g.work(nil))
	<-g.started
	got, err := r.Cancel(alice, task.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Cancelling && got.State != Cancelled {
		t.Errorf("Cancel returned state %s", got.State)
	}
	final, err := r.Await(context.Background(), alice, task.ID(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if final.State != Cancelled || !errors.Is(final.Err, ErrCancelled) || final.FinishedNs == 0 {
		t.Errorf("final = %+v", final)
	}
	want := []string{"running", "cancelling", "cancelled"}
	if s := rec.states(task.ID()); !slices.Equal(s, want) {
		t.Errorf("notifications = %v, want %v", s, want)
	}
}

func TestCancelSlowWorkStaysCancelling(t *testing.T) {
	noLeaks(t)
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	sawCancel := make(chan struct{})
	letGo := make(chan struct{})
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		<-ctx.Done()
		close(sawCancel)
		<-letGo // slow to stop, like a process that ignores SIGTERM
		return "late", nil
	})
	if got, err := r.Cancel(alice, task.ID()); err != nil || got.State != Cancelling {
		t.Fatalf("Cancel = %+v, %v", got, err)
	}
	<-sawCancel
	for i := 0; i < 3; i++ {
		got, err := r.Await(context.Background(), alice, task.ID(), 10*time.Millisecond)
		if err != nil || got.State != Cancelling || !got.TimedOut || got.FinishedNs != 0 {
			t.Fatalf("while stopping: %+v, %v", got, err)
		}
		// Repeated cancels are no-ops.
		if again, err := r.Cancel(alice, task.ID()); err != nil || again.State != Cancelling {
			t.Fatalf("second Cancel = %+v, %v", again, err)
		}
	}
	close(letGo)
	waitDone(t, task)
	if got := task.Record(); got.State != Cancelled {
		t.Errorf("final state %s", got.State)
	}
	// The work's own return is still available.
	if v, ok, _ := task.Result(); !ok || v != "late" {
		t.Errorf("Result = %v, %v", v, ok)
	}
	want := []string{"running", "cancelling", "cancelled"}
	if s := rec.states(task.ID()); !slices.Equal(s, want) {
		t.Errorf("notifications = %v, want %v", s, want)
	}
}

func TestCancelFinishedIsNoop(t *testing.T) {
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	task := mustStart(t, r, alice, func(context.Context) (any, error) { return 1, nil })
	waitDone(t, task)
	before := task.Record()
	got, err := r.Cancel(alice, task.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Completed || got.FinishedNs != before.FinishedNs {
		t.Errorf("Cancel of finished = %+v", got)
	}
	if s := rec.states(task.ID()); !slices.Equal(s, []string{"running", "completed"}) {
		t.Errorf("notifications = %v", s)
	}
}

func TestCancelAll(t *testing.T) {
	noLeaks(t)
	r := New()
	var tasks []*Task
	for _, o := range []Owner{alice, bob, aliceMisc} {
		for i := 0; i < 5; i++ {
			tasks = append(tasks, mustStart(t, r, o, blockForever))
		}
	}
	done := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
	waitDone(t, done)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.CancelAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if s := task.Record().State; s != Cancelled {
			t.Errorf("%s: %s", task.ID(), s)
		}
	}
	if s := done.Record().State; s != Completed {
		t.Errorf("finished task changed to %s", s)
	}
	// CancelAll does not close: new work may still start.
	later := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
	waitDone(t, later)
}

func TestCancelAllDeadline(t *testing.T) {
	noLeaks(t)
	r := New()
	stuck := make(chan struct{})
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		<-stuck // ignores cancellation
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := r.CancelAll(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CancelAll = %v, want deadline exceeded", err)
	}
	if s := task.Record().State; s != Cancelling {
		t.Errorf("state = %s", s)
	}
	close(stuck)
	waitDone(t, task)
}

func TestClose(t *testing.T) {
	noLeaks(t)
	r := New()
	task := mustStart(t, r, alice, blockForever)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := task.Record().State; s != Cancelled {
		t.Errorf("state = %s", s)
	}
	if _, err := r.Start(alice, "x", blockForever); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close = %v", err)
	}
	// Records stay readable.
	if _, err := r.Get(alice, task.ID()); err != nil {
		t.Error(err)
	}
}
