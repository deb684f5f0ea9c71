package tasks

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAwaitUntilTerminal(t *testing.T) {
	noLeaks(t)
	r := New()
	g := newGate()
	task := mustStart(t, r, alice, g.work("v"))
	go func() {
		<-g.started
		time.Sleep(20 * time.Millisecond)
		close(g.release)
	}()
	rec, err := r.Await(context.Background(), alice, task.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != Completed || rec.TimedOut {
		t.Errorf("record = %+v", rec)
	}
	// Awaiting a finished task returns at once, even with a timeout.
	rec, err = r.Await(context.Background(), alice, task.ID(), time.Nanosecond)
	if err != nil || rec.State != Completed || rec.TimedOut {
		t.Errorf("second await = %+v, %v", rec, err)
	}
}

func TestAwaitTimeout(t *testing.T) {
	noLeaks(t)
	r := New()
	g := newGate()
	task := mustStart(t, r, alice, g.work(nil))
	start := time.Now()
	rec, err := r.Await(context.Background(), alice, task.ID(), 30*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 30*time.Millisecond || el > 2*time.Second {
		t.Errorf("await took %v", el)
	}
	if !rec.TimedOut || rec.State != Running || rec.FinishedNs != 0 {
		t.Errorf("record = %+v, want running and timed out", rec)
	}
	// The task keeps running after the wait gave up.
	if got := task.Record(); got.State != Running || got.TimedOut {
		t.Errorf("stored record = %+v", got)
	}
	close(g.release)
	rec, err = r.Await(context.Background(), alice, task.ID(), 5*time.Second)
	if err != nil || rec.State != Completed || rec.TimedOut {
		t.Errorf("final await = %+v, %v", rec, err)
	}
}

func TestAwaitContextCancelledReturnsPromptly(t *testing.T) {
	noLeaks(t)
	r := New()
	task := mustStart(t, r, alice, blockForever)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	rec, err := r.Await(ctx, alice, task.ID(), time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("await took %v after cancel", time.Since(start))
	}
	if rec.State != Running || rec.TimedOut {
		t.Errorf("record = %+v", rec)
	}
	if err := r.CancelAll(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestManyTimedOutAwaitsLeakNothing(t *testing.T) {
	noLeaks(t)
	r := New()
	task := mustStart(t, r, alice, blockForever)
	for i := 0; i < 50; i++ {
		rec, err := r.Await(context.Background(), alice, task.ID(), time.Millisecond)
		if err != nil || !rec.TimedOut {
			t.Fatalf("await %d = %+v, %v", i, rec, err)
		}
	}
	if err := r.CancelAll(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestAwaitSeesAllNotifications(t *testing.T) {
	r := New()
	var rec recorder
	r.OnChange(func(x Record) {
		time.Sleep(5 * time.Millisecond) // a slow publisher
		rec.hook(x)
	})
	task := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
	if _, err := r.Await(context.Background(), alice, task.ID(), 0); err != nil {
		t.Fatal(err)
	}
	if got := rec.states(task.ID()); len(got) != 2 || got[1] != "completed" {
		t.Errorf("notifications at await return = %v", got)
	}
}
