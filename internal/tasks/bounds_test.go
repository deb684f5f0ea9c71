package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
)

func TestLiveBound(t *testing.T) {
	noLeaks(t)
	r := New()
	var live []*Task
	for i := 0; i < MaxLive; i++ {
		live = append(live, mustStart(t, r, alice, blockForever))
	}
	_, err := r.Start(alice, "one too many", blockForever)
	var ex *budget.ExceededError
	if !errors.As(err, &ex) || !errors.Is(err, ErrTooManyTasks) || !errors.Is(err, budget.ErrExceeded) ||
		ex.Name != BudgetLive || ex.Limit != MaxLive || !strings.Contains(err.Error(), fmt.Sprintf("%q", alice.Session)) {
		t.Fatalf("Start beyond bound = %v", err)
	}
	// Other owners have their own bound.
	other := mustStart(t, r, aliceMisc, blockForever)
	// A finished (or cancelled) task frees a slot.
	if _, err := r.Cancel(alice, live[0].ID()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, live[0])
	extra := mustStart(t, r, alice, blockForever)
	if _, err := r.Start(alice, "again", blockForever); !errors.Is(err, ErrTooManyTasks) {
		t.Errorf("Start = %v, want ErrTooManyTasks", err)
	}
	_ = other
	_ = extra
	if err := r.CancelAll(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRetainedBound(t *testing.T) {
	const keep = 4
	r := New(WithLimits(2, keep))
	var ids []string
	for i := 0; i < keep+3; i++ {
		task := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
		waitDone(t, task)
		ids = append(ids, task.ID())
	}
	g := newGate()
	running := mustStart(t, r, alice, g.work(nil))
	bobs := mustStart(t, r, bob, func(context.Context) (any, error) { return nil, nil })
	waitDone(t, bobs)

	list := r.List(alice)
	var got []string
	for _, rec := range list {
		got = append(got, rec.Task)
	}
	want := append(append([]string{}, ids[len(ids)-keep:]...), running.ID())
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	for _, id := range ids[:len(ids)-keep] {
		if _, err := r.Get(alice, id); !errors.Is(err, ErrUnknownTask) {
			t.Errorf("evicted %s: Get = %v", id, err)
		}
	}
	// Bob's record is not counted against alice's and survives.
	if _, err := r.Get(bob, bobs.ID()); err != nil {
		t.Errorf("bob's record: %v", err)
	}
	// Live tasks are never evicted.
	close(g.release)
	waitDone(t, running)
	if _, err := r.Get(alice, running.ID()); err != nil {
		t.Errorf("newest finished record: %v", err)
	}
	if n := len(r.List(alice)); n != keep {
		t.Errorf("retained %d, want %d", n, keep)
	}
}

func TestDefaultRetainedBound(t *testing.T) {
	r := New()
	for i := 0; i < MaxRetained+10; i++ {
		task := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
		waitDone(t, task)
	}
	list := r.List(alice)
	if len(list) != MaxRetained {
		t.Fatalf("retained %d, want %d", len(list), MaxRetained)
	}
	if list[0].Task != "task:11" {
		t.Errorf("oldest retained %s, want task:11", list[0].Task)
	}
}
