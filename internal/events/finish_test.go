package events

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFinishDeliversWhatWasPublished: Finish returns only after a slow
// sink has taken every event published before it, and the sink is not
// called for the channel after Finish returns (a watched exec's events
// precede its answer).
func TestFinishDeliversWhatWasPublished(t *testing.T) {
	b := New()
	var mu sync.Mutex
	var got []uint64
	var finished atomic.Bool
	var late atomic.Int32
	c := b.NewSubscriber(func(ev Event) error {
		time.Sleep(time.Millisecond) // a sink slower than the publisher
		if finished.Load() {
			late.Add(1)
		}
		mu.Lock()
		got = append(got, ev.Seq)
		mu.Unlock()
		return nil
	})
	defer c.Close()
	if _, err := c.Subscribe(alice, "task.1", nil); err != nil {
		t.Fatal(err)
	}
	const n = 50
	for range n {
		published(t)(b.Publish(alice, "task.1", nil))
	}
	if !c.Finish("task.1", 10*time.Second) {
		t.Fatal("Finish found no subscription")
	}
	finished.Store(true)
	mu.Lock()
	count := len(got)
	mu.Unlock()
	if count != n {
		t.Fatalf("Finish returned after %d of %d events", count, n)
	}
	published(t)(b.Publish(alice, "task.1", nil))
	time.Sleep(20 * time.Millisecond)
	if late.Load() != 0 || c.Len() != 0 {
		t.Fatalf("after Finish: %d late sink calls, %d subscriptions", late.Load(), c.Len())
	}
}

// TestFinishBounded: a sink that never takes an event holds Finish no
// longer than its wait, and the subscription ends.
func TestFinishBounded(t *testing.T) {
	b := New()
	c := b.NewSubscriber(func(Event) error { return ErrSinkFull })
	defer c.Close()
	if _, err := c.Subscribe(alice, "task.2", nil); err != nil {
		t.Fatal(err)
	}
	published(t)(b.Publish(alice, "task.2", nil))
	t0 := time.Now()
	c.Finish("task.2", 100*time.Millisecond)
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("Finish took %v past its 100ms wait", took)
	}
	if c.Len() != 0 {
		t.Fatal("the subscription outlived Finish")
	}
}

// TestFinishWithNothingLeft: a subscription that has delivered everything
// does not hold Finish until its wait runs out.
func TestFinishWithNothingLeft(t *testing.T) {
	b := New()
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	if _, err := c.Subscribe(alice, "task.3", nil); err != nil {
		t.Fatal(err)
	}
	published(t)(b.Publish(alice, "task.3", nil))
	r.waitFor(t, "the first event", func(evs []Event) bool { return len(evs) == 1 })
	t0 := time.Now()
	c.Finish("task.3", 10*time.Second)
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("Finish waited %v with nothing left to deliver", took)
	}
}
