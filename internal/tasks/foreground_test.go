package tasks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
)

// TestForegroundVisibleAndCancellable: a foreground task is listed with
// Foreground set while it runs, its owner can cancel it, and its waiter
// sees the cancellation.
func TestForegroundVisibleAndCancellable(t *testing.T) {
	noLeaks(t)
	r := New()
	g := newGate()
	fg, err := r.StartForeground(alice, "while true { }", g.work("never"))
	if err != nil {
		t.Fatal(err)
	}
	<-g.started
	list := r.List(alice)
	if len(list) != 1 || list[0].Task != fg.ID() || !list[0].Foreground || list[0].State != Running {
		t.Fatalf("List = %+v, want the running foreground task", list)
	}
	if got := r.List(bob); len(got) != 0 {
		t.Fatalf("another owner sees %+v", got)
	}
	if _, err := r.Cancel(bob, fg.ID()); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("another owner's Cancel: %v, want ErrUnknownTask", err)
	}
	rec, err := r.Cancel(alice, fg.ID())
	if err != nil || rec.State != Cancelling {
		t.Fatalf("Cancel = %+v, %v", rec, err)
	}
	waitDone(t, fg)
	_, ok, werr := fg.Result()
	if !ok || werr == nil {
		t.Fatalf("Result after cancel: ok=%v err=%v, want the work's error", ok, werr)
	}
	if fg.Record().State != Cancelled {
		t.Fatalf("state %s, want cancelled", fg.Record().State)
	}
	// Not retained: the waiter has the result.
	if got := r.List(alice); len(got) != 0 {
		t.Fatalf("List after the foreground task finished = %+v, want empty", got)
	}
	if _, err := r.Get(alice, fg.ID()); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("Get of a finished foreground task: %v, want ErrUnknownTask", err)
	}
}

// TestForegroundBoundsApart: foreground tasks neither count against
// MaxLive nor evict retained records, and have their own bound.
func TestForegroundBoundsApart(t *testing.T) {
	noLeaks(t)
	r := New(WithLimits(1, 1))
	bg := newGate()
	kept := mustStart(t, r, alice, bg.work("bg"))
	close(bg.release)
	waitDone(t, kept)
	busy := mustStart(t, r, alice, blockForever)
	if _, err := r.Start(alice, "x", blockForever); !errors.Is(err, ErrTooManyTasks) {
		t.Fatalf("second background task: %v, want ErrTooManyTasks", err)
	}
	var fgs []*Task
	for range MaxForeground {
		fg, err := r.StartForeground(alice, "fg", blockForever)
		if err != nil {
			t.Fatalf("foreground task %d: %v", len(fgs)+1, err)
		}
		fgs = append(fgs, fg)
	}
	_, err := r.StartForeground(alice, "fg", blockForever)
	var ex *budget.ExceededError
	if !errors.As(err, &ex) || !errors.Is(err, ErrTooManyTasks) || ex.Name != BudgetForeground || ex.Limit != MaxForeground {
		t.Fatalf("foreground task past the bound: %v, want %s of %d", err, BudgetForeground, MaxForeground)
	}
	for _, fg := range fgs {
		r.Cancel(alice, fg.ID())
		waitDone(t, fg)
	}
	if _, err := r.Get(alice, kept.ID()); err != nil {
		t.Fatalf("the retained record was evicted by foreground tasks: %v", err)
	}
	r.Cancel(alice, busy.ID())
	waitDone(t, busy)
}

func TestForegroundWireField(t *testing.T) {
	b, err := json.Marshal(Record{Task: "task:1", State: Running, Foreground: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"foreground":true`) {
		t.Errorf("wire record %s lacks foreground", b)
	}
	b, _ = json.Marshal(Record{Task: "task:2", State: Running})
	if strings.Contains(string(b), "foreground") {
		t.Errorf("wire record %s of a background task names foreground", b)
	}
}
