package tasks

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

var (
	alice     = Owner{Principal: "alice", Session: "work"}
	aliceMisc = Owner{Principal: "alice", Session: "misc"}
	bob       = Owner{Principal: "bob", Session: "work"}
)

// noLeaks fails the test if, at its end, more goroutines run than at the
// start (after giving exiting ones a moment).
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// recorder collects OnChange notifications.
type recorder struct {
	mu   sync.Mutex
	recs []Record
}

func (c *recorder) hook(r Record) {
	c.mu.Lock()
	c.recs = append(c.recs, r)
	c.mu.Unlock()
}

// states returns the sequence of (state, suspended) notified for task id.
func (c *recorder) states(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.recs {
		if r.Task != id {
			continue
		}
		s := string(r.State)
		if r.Suspended {
			s += "+suspended"
		}
		out = append(out, s)
	}
	return out
}

// gate is work that blocks until released or its context ends.
type gate struct {
	release chan struct{}
	started chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{release: make(chan struct{}), started: make(chan struct{})} }

func (g *gate) work(v any) Work {
	return func(ctx context.Context) (any, error) {
		g.once.Do(func() { close(g.started) })
		select {
		case <-g.release:
			return v, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func mustStart(t *testing.T, r *Registry, o Owner, w Work) *Task {
	t.Helper()
	task, err := r.Start(o, "test", w)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return task
}

func waitDone(t *testing.T, task *Task) {
	t.Helper()
	select {
	case <-task.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not finish", task.ID())
	}
}

func blockForever(ctx context.Context) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
