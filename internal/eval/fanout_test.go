package eval

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOnRunsHandlerPerEvent: on subscribes at once, calls the handler with
// each event record in order, and stops when cancelled.
func TestOnRunsHandlerPerEvent(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	s.inline(`var seen = []
let h = on(channel("user.x"), ev => { seen = seen + [ev.payload] })
let ch = channel("user.x")
for i in 0..5 { ch.emit(i) }`)
	deadline := time.Now().Add(10 * time.Second)
	for s.inline("seen.len()") != "5" {
		if time.Now().After(deadline) {
			t.Fatalf("handler saw %s", s.inline("seen"))
		}
		time.Sleep(time.Millisecond)
	}
	if got := s.inline("seen"); got != "[0, 1, 2, 3, 4]" {
		t.Errorf("seen = %s", got)
	}
	if got := s.inline("h.cancel()\ntry { h.await() } catch e { e.code }"); got != `"task_cancelled"` {
		t.Errorf("cancelled handler task: %s", got)
	}
	if _, err := s.eval(`on("user.x", 3)`); err == nil || !strings.Contains(err.Error(), "handler") {
		t.Errorf("a non-function handler: %v", err)
	}
}

// TestOnHandlerFailureEndsTask: a failing handler ends the on task with
// its error.
func TestOnHandlerFailureEndsTask(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	got := s.inline(`let h = on("user.y", ev => 1 / 0)
channel("user.y").emit(1)
try { h.await() } catch e { e.code }`)
	if got != `"div_zero"` {
		t.Errorf("handler failure: %s", got)
	}
}

// TestParallel: results in order; the first failure raises and cancels
// the slower branches; settle collects every outcome; more thunks than
// MaxParallel run in bounded batches.
func TestParallel(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	if got := s.inline("parallel(() => { sleep 30ms; 1 }, () => 2, () => { sleep 10ms; 3 })"); got != "[1, 2, 3]" {
		t.Errorf("parallel = %s", got)
	}
	within(t, 10*time.Second, "a failing branch", func() {
		if got := s.inline("try { parallel(() => { sleep 60s }, () => 1 / 0) } catch e { e.code }"); got != `"div_zero"` {
			t.Errorf("failure = %s", got)
		}
	})
	if got := s.inline("parallel(() => 1, () => 1 / 0, settle: true).map(.ok)"); got != "[true, false]" {
		t.Errorf("settle = %s", got)
	}
	n := MaxParallel*2 + 3
	thunks := make([]string, n)
	for i := range thunks {
		thunks[i] = "() => " + strconv.Itoa(i)
	}
	if got := s.inline("parallel(" + strings.Join(thunks, ", ") + ").len()"); got != strconv.Itoa(n) {
		t.Errorf("%d thunks gave %s results", n, got)
	}
	if got := s.in.LiveTasks(); got > 0 {
		// Branches finish before parallel returns.
		time.Sleep(100 * time.Millisecond)
		if got = s.in.LiveTasks(); got > 0 {
			t.Errorf("%d branches still live after parallel returned", got)
		}
	}
}

// TestOnBacklogIsBounded: a handler slower than its channel does not
// let events pile up: the subscription's queue holds a bounded backlog
// and the handler is told how many were dropped.
func TestOnBacklogIsBounded(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	s.inline(`var seen = []
var h = on("user.slow", ev => { sleep 2ms; seen = seen + [ev] })
let ch = channel("user.slow")
for i in 0..2000 { ch.emit(i) }`)
	// Unbounded, the handler would take 2000 × 2 ms; bounded, it drains
	// the backlog well before.
	deadline := time.Now().Add(20 * time.Second)
	for s.inline(`seen.where(e => e.get("dropped") != null).len() > 0`) != "true" {
		if time.Now().After(deadline) {
			t.Fatalf("no dropped record after 20 s; the handler saw %s events", s.inline("seen.len()"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	n := s.inline("seen.len()")
	if got := s.inline("seen.len() < 400"); got != "true" {
		t.Errorf("the handler saw %s of 2000 events: the backlog is not bounded", n)
	}
	s.inline("h.cancel()")
}
