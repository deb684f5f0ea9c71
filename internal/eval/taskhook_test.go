package eval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/value"
)

// countingHook admits at most limit live tasks, names them "task:K" from
// 100 up, and records which ended.
type countingHook struct {
	mu    sync.Mutex
	limit int
	live  int
	next  int
	ended []string
	done  map[string]bool // whether Done was closed when ended ran
	tasks map[string]*Task
}

func (h *countingHook) Started(_ context.Context, tk *Task) (string, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live >= h.limit {
		return "", nil, &budget.ExceededError{Name: "test_tasks", Limit: int64(h.limit), Reason: "too many"}
	}
	h.live++
	h.next++
	id := "task:" + itoa(99+h.next)
	h.tasks[id] = tk
	return id, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.live--
		h.ended = append(h.ended, id)
		h.done[id] = tk.isDone()
	}, nil
}

// TestTaskHook: Options.Tasks sees every language task start and end, its
// id is the task's wire id, and its refusal is raised as quota_exceeded
// naming its budget without leaving a task behind.
func TestTaskHook(t *testing.T) {
	h := &countingHook{limit: 2, done: map[string]bool{}, tasks: map[string]*Task{}}
	s := &session{t: t, h: newFakeHost()}
	in, err := New(Options{Registry: testRegistry, Host: s.h, Dir: "/work", Tasks: h})
	if err != nil {
		t.Fatal(err)
	}
	s.in = in
	closeTasks(t, in)

	s.inline("var a = spawn { sleep 60s }")
	var e *value.Error
	h.mu.Lock()
	a := h.tasks["task:100"]
	h.mu.Unlock()
	if a == nil {
		t.Fatal("the hook did not see the spawn")
	}
	if id, _ := a.WireTask(); id != "task:100" {
		t.Errorf("wire id %q, want the hook's task:100", id)
	}
	if a.Desc() != "spawn" {
		t.Errorf("desc %q", a.Desc())
	}
	s.inline("var c = spawn { sleep 60s }")
	_, err = s.eval("spawn { 1 }")
	if !errors.As(err, &e) || e.Code != budget.CodeQuotaExceeded || !strings.Contains(e.Msg, "test_tasks") {
		t.Fatalf("past the hook's bound: %v, want quota_exceeded naming test_tasks", err)
	}
	if n := in.LiveTasks(); n != 2 {
		t.Errorf("live tasks after a refusal: %d, want 2", n)
	}
	a.Cancel()
	select {
	case <-a.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled task did not finish")
	}
	if _, err := a.Result(); err == nil || !strings.Contains(err.Error(), "task_cancelled") {
		t.Errorf("cancelled task result: %v, want task_cancelled", err)
	}
	waitFor(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.done["task:100"] })
	if got := s.inline("(spawn { 7 }).await()"); got != "7" {
		t.Errorf("after cancelling one: %s", got)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
