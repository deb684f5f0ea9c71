package kernel

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// taskRecord is a task record as the wire shows it.
type taskRecord struct {
	Task       string  `json:"task"`
	Session    string  `json:"session"`
	State      string  `json:"state"`
	StartedNS  int64   `json:"started_ns"`
	FinishedNS *int64  `json:"finished_ns"`
	ResultRef  *string `json:"result_ref"`
	Error      *string `json:"error"`
	TimedOut   bool    `json:"timed_out"`
}

const (
	taskRunning    = "running"
	taskCancelling = "cancelling"
	taskCancelled  = "cancelled"
	taskCompleted  = "completed"
)

func TestAsyncExecAndAwait(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	var started struct{ Task, Events string }
	c.ok("exec", map[string]any{"src": "var i = 0\nwhile i < 1000 { i += 1 }\ni", "async": true}, &started)
	if started.Task != "task:1" || started.Events != "task.1" {
		t.Fatalf("async exec = %+v", started)
	}
	var rec taskRecord
	c.ok("task.await", map[string]any{"task": "task:1"}, &rec)
	if rec.State != taskCompleted || rec.ResultRef == nil || rec.FinishedNS == nil || rec.Session != "default" {
		t.Fatalf("await = %+v", rec)
	}
	var got proto.ValueJSON
	c.ok("value.get", map[string]any{"ref": *rec.ResultRef}, &got)
	if string(got.Value) != `{"$":"int","v":1000}` {
		t.Errorf("task result = %s", got.Value)
	}
	// An exec after the task sees its bindings.
	var res execResult
	c.ok("exec", map[string]any{"src": "i"}, &res)
	if res.Render != "1000" {
		t.Errorf("i = %s", res.Render)
	}
	var list struct{ Tasks []taskRecord }
	c.ok("task.list", map[string]any{}, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].Task != "task:1" {
		t.Errorf("task.list = %+v", list)
	}
	var ev eventsReadResult
	c.ok("events.read", map[string]any{"channel": "task.1"}, &ev)
	if len(ev.Events) != 2 {
		t.Errorf("task events = %+v", ev)
	}
}

func TestTaskAwaitTimeoutAndCancel(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("exec", map[string]any{"src": "while true { }", "async": true}, nil)
	var rec taskRecord
	start := time.Now()
	c.ok("task.await", map[string]any{"task": "task:1", "timeout_ms": 50}, &rec)
	if !rec.TimedOut || rec.State != taskRunning || time.Since(start) > 3*time.Second {
		t.Errorf("await with timeout = %+v", rec)
	}
	// Suspended in-process work is held, and a cancel still ends it.
	var susp struct {
		Suspended bool `json:"suspended"`
	}
	c.ok("task.suspend", map[string]any{"task": "task:1"}, &susp)
	if !susp.Suspended {
		t.Errorf("suspend did not mark the task suspended")
	}
	c.ok("task.cancel", map[string]any{"task": "task:1"}, &rec)
	if rec.State != taskCancelling && rec.State != taskCancelled {
		t.Errorf("cancel = %+v", rec)
	}
	rec = taskRecord{}
	c.ok("task.await", map[string]any{"task": "task:1", "timeout_ms": 5000}, &rec)
	if rec.State != taskCancelled || rec.TimedOut || rec.Error == nil {
		t.Errorf("after cancel = %+v", rec)
	}
	// The session is free again.
	c.ok("exec", map[string]any{"src": "1"}, nil)
}

func TestTasksAreSessionScoped(t *testing.T) {
	k := startKernel(t)
	a := k.dial(t)
	a.attach("one", "")
	a.ok("exec", map[string]any{"src": "1", "async": true}, nil)
	b := k.dial(t)
	b.attach("two", "")
	for _, m := range []string{"task.get", "task.await", "task.cancel", "task.resume"} {
		b.fail(m, map[string]any{"task": "task:1"}, proto.CodeUnknownTask)
	}
	_, secret := k.token(t, "agent:x", "p")
	x := k.dial(t)
	x.attach("one", secret)
	x.fail("task.get", map[string]any{"task": "task:1"}, proto.CodeUnknownTask)
	for _, bad := range []string{"task:01", "task:", "out:1", "task:99"} {
		a.fail("task.get", map[string]any{"task": bad}, proto.CodeUnknownTask)
	}
	a.fail("task.get", map[string]any{"task": 7}, proto.CodeInvalidParams)
	a.fail("task.get", map[string]any{}, proto.CodeInvalidParams)
	var list struct{ Tasks []json.RawMessage }
	b.ok("task.list", nil, &list)
	if len(list.Tasks) != 0 {
		t.Errorf("session two lists %d tasks", len(list.Tasks))
	}
}

func TestTaskCancelKillsProcesses(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("exec", map[string]any{"src": "sh { sleep 30 & sleep 30 }", "async": true}, nil)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	c.ok("task.cancel", map[string]any{"task": "task:1"}, nil)
	var rec taskRecord
	c.ok("task.await", map[string]any{"task": "task:1", "timeout_ms": 10000}, &rec)
	if rec.TimedOut || rec.State != taskCancelled {
		t.Errorf("after cancel = %+v", rec)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("cancel took %v", d)
	}
}
