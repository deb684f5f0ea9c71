package kernel

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestPipelinedExecsBesideAsyncKeepOrder writes, before reading any answer,
// a run of execs on one connection with async execs among them (one that
// sleeps, one that increments the shared counter first): every synchronous
// exec takes effect in request order, none waits for the sleeping task, and
// the async increment runs before the requests after it.
func TestPipelinedExecsBesideAsyncKeepOrder(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("pipe", "")
	var frames []string
	add := func(id int, params map[string]any) {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "exec", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, string(b))
	}
	add(1, map[string]any{"src": "var q = 0"})
	add(2, map[string]any{"src": "^sleep 30", "async": true})
	add(3, map[string]any{"src": "q += 100", "async": true})
	const n = 50
	for i := 0; i < n; i++ {
		add(10+i, map[string]any{"src": "q += 1\nq"})
	}
	c.sendRaw(strings.Join(frames, "\n"))
	got := map[int]*rpcResponse{}
	for len(got) < n+3 {
		r := c.recv()
		id, err := strconv.Atoi(string(r.ID))
		if err != nil {
			t.Fatalf("response id %s", r.ID)
		}
		got[id] = r
	}
	var sleeper taskStarted
	if err := json.Unmarshal(got[2].Result, &sleeper); err != nil || sleeper.Task == "" {
		t.Fatalf("async exec answer %s: %v", got[2].Result, err)
	}
	for i := 0; i < n; i++ {
		r := got[10+i]
		if r.Error != nil {
			t.Fatalf("exec %d: %s", i, r.Error.Message)
		}
		var res execResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		if want := strconv.Itoa(101 + i); res.Render != want {
			t.Errorf("exec %d: q = %s, want %s (request order)", i, res.Render, want)
		}
	}
	var rec struct {
		State string `json:"state"`
	}
	c.ok("task.get", map[string]any{"task": sleeper.Task}, &rec)
	if rec.State != "running" {
		t.Errorf("the sleeping task is %s: the execs waited for it", rec.State)
	}
	c.ok("task.cancel", map[string]any{"task": sleeper.Task}, nil)
}
