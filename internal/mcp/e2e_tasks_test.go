package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestE2ELongExecAnswersLikeExec: a call that outlives ForegroundWait
// answers what exec would: the value with ref and render, or the raised
// error with its code and ref.
func TestE2ELongExecAnswersLikeExec(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 0.6; echo late'"})
	if res.IsError {
		t.Fatalf("long exec: %s", text(res))
	}
	var r execResult
	structured(t, res, &r)
	var oc struct {
		T   string `json:"$"`
		OK  bool   `json:"ok"`
		Out struct {
			V string `json:"v"`
		} `json:"out"`
	}
	if err := json.Unmarshal(r.Value, &oc); err != nil || oc.T != "outcome" || !oc.OK || !strings.Contains(oc.Out.V, "late") || !strings.HasPrefix(r.Ref, "out:") || r.Render == "" || r.Task == "" {
		t.Fatalf("long exec = %+v (%s)", r, r.Value)
	}
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 0.6; exit 3'", "position": "stmt"})
	e := wantToolError(t, "a long failing exec", res, -32002)
	var d struct {
		Code string `json:"code"`
		Ref  string `json:"ref"`
	}
	if err := json.Unmarshal(e.Data, &d); err != nil || d.Code != "cmd_failed" || !strings.HasPrefix(d.Ref, "out:") {
		t.Fatalf("a long failing exec: data %s", e.Data)
	}
	// The error is stored at its ref.
	c := read(t, s, "shoal://out/"+strings.TrimPrefix(d.Ref, "out:"))
	if !strings.Contains(c.Text, "cmd_failed") {
		t.Errorf("the stored error = %.300s", c.Text)
	}
}

// TestE2EBackgroundTaskAndCancel: background returns a task at once; its
// resource reads and can be subscribed to; shoal_cancel ends it; a
// caller's timeout_ms returns the task still running.
func TestE2EBackgroundTaskAndCancel(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 30'", "background": true})
	var bg struct {
		Task   string `json:"task"`
		Events string `json:"events"`
	}
	structured(t, res, &bg)
	if !strings.HasPrefix(bg.Task, "task:") {
		t.Fatalf("background = %s", text(res))
	}
	uri := "shoal://task/" + strings.TrimPrefix(bg.Task, "task:")
	// resources/list shows the live task after the fixed resources.
	rl, err := s.cs.ListResources(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, r := range rl.Resources {
		listed = listed || r.URI == uri
	}
	if !listed {
		t.Errorf("resources/list lacks %s", uri)
	}
	if c := read(t, s, uri); !strings.Contains(c.Text, `"running"`) {
		t.Errorf("task resource = %.300s", c.Text)
	}
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	res = s.call(t, ctx(t), "shoal_cancel", map[string]any{"task": bg.Task})
	if res.IsError {
		t.Fatalf("cancel: %s", text(res))
	}
	for deadline := time.Now().Add(10 * time.Second); !contains(s.notes.updates(), uri); {
		select {
		case <-s.notes.changed:
		case <-time.After(time.Until(deadline)):
			t.Fatal("no update for the cancelled task")
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c := read(t, s, uri); strings.Contains(c.Text, `"cancelled"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never read cancelled")
		}
	}
	res = s.call(t, ctx(t), "shoal_cancel", map[string]any{"task": "task:9999"})
	wantToolError(t, "cancel of an unknown task", res, -32021)
	start := time.Now()
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 20'", "timeout_ms": 700})
	var to struct {
		Task     string `json:"task"`
		TimedOut bool   `json:"timed_out"`
	}
	structured(t, res, &to)
	if !to.TimedOut || to.Task == "" {
		t.Fatalf("timeout_ms 700 = %s", text(res))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout_ms 700 answered after %v", d)
	}
	s.call(t, ctx(t), "shoal_cancel", map[string]any{"task": to.Task})
}
