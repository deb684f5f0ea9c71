package tasks

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Under concurrent cancels, completions and a slow hook, every task's
// notifications arrive in lifecycle order, each exactly once, ending with
// exactly one terminal record.
func TestOnChangeOrderingUnderRace(t *testing.T) {
	noLeaks(t)
	r := New()
	var rec recorder
	r.OnChange(func(x Record) {
		if x.State == Running {
			time.Sleep(time.Millisecond) // widen the window for reordering
		}
		rec.hook(x)
	})
	const n = 40
	var tasks []*Task
	for i := 0; i < n; i++ {
		g := newGate()
		task := mustStart(t, r, alice, g.work(i))
		tasks = append(tasks, task)
		switch i % 3 {
		case 0:
			close(g.release)
		case 1:
			go func() { _, _ = r.Cancel(alice, task.ID()) }()
		case 2:
			go func() {
				close(g.release)
				_, _ = r.Cancel(alice, task.ID())
			}()
		}
	}
	for _, task := range tasks {
		waitDone(t, task)
	}
	rank := map[string]int{"running": 0, "cancelling": 1, "cancelled": 2, "completed": 2, "failed": 2}
	for _, task := range tasks {
		got := rec.states(task.ID())
		if len(got) < 2 || got[0] != "running" {
			t.Errorf("%s: %v", task.ID(), got)
			continue
		}
		if !slices.IsSortedFunc(got, func(a, b string) int { return rank[a] - rank[b] }) {
			t.Errorf("%s out of order: %v", task.ID(), got)
		}
		if last := got[len(got)-1]; last != string(task.Record().State) {
			t.Errorf("%s: last notification %s, state %s", task.ID(), last, task.Record().State)
		}
	}
}

// The hook may call back into the registry, including for the task being
// reported, without deadlocking.
func TestOnChangeReentrant(t *testing.T) {
	noLeaks(t)
	r := New()
	var mu sync.Mutex
	var seen []State
	r.OnChange(func(x Record) {
		got, err := r.Get(alice, x.Task)
		if err != nil {
			t.Errorf("Get in hook: %v", err)
		}
		_ = r.List(alice)
		if x.State == Running {
			_, _ = r.Cancel(alice, x.Task) // cancels from inside the hook
		}
		mu.Lock()
		seen = append(seen, got.State)
		mu.Unlock()
	})
	task := mustStart(t, r, alice, blockForever)
	waitDone(t, task)
	if s := task.Record().State; s != Cancelled {
		t.Errorf("state = %s", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Errorf("hook calls saw %v", seen)
	}
}

func TestNotificationsCarryOwnerSession(t *testing.T) {
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	a := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
	b := mustStart(t, r, aliceMisc, func(context.Context) (any, error) { return nil, nil })
	waitDone(t, a)
	waitDone(t, b)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, x := range rec.recs {
		want := map[string]string{a.ID(): "work", b.ID(): "misc"}[x.Task]
		if x.Session != want {
			t.Errorf("%s: session %q, want %q", x.Task, x.Session, want)
		}
	}
}
