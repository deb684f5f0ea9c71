package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestE2EResourceListLeavesOutFinishedTasks: execs do not add a resource
// each to resources/list; a running task is listed, and a finished one
// stays readable by the task template.
func TestE2EResourceListLeavesOutFinishedTasks(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	list := func() []string {
		t.Helper()
		res, err := s.cs.ListResources(ctx(t), &sdk.ListResourcesParams{})
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		return uris
	}
	before := len(list())
	for range 5 {
		if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 1"}); res.IsError {
			t.Fatal(text(res))
		}
	}
	if got := list(); len(got) != before {
		t.Fatalf("five execs changed resources/list from %d to %d entries: %v", before, len(got), got)
	}
	var bg struct {
		Task string `json:"task"`
	}
	structured(t, s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "sleep 30", "background": true}), &bg)
	uri := "shoal://task/" + strings.TrimPrefix(bg.Task, "task:")
	if got := list(); !strings.Contains(strings.Join(got, " "), uri) {
		t.Fatalf("the running %s is not listed: %v", bg.Task, got)
	}
	s.call(t, ctx(t), "shoal_cancel", map[string]any{"task": bg.Task})
	// The cancel answers once the task is cancelling; it is listed until
	// its process has ended (a cancelling task is live), so wait for the
	// record to say cancelled before looking at the list. An exec that
	// finished within its wait left no task at all (the kernel keeps no
	// record of it); a background task that finished is still read by the
	// template, though no longer listed.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		c := read(t, s, uri)
		if !strings.Contains(c.Text, `"`+bg.Task+`"`) {
			t.Fatalf("a task read by template = %.300s", c.Text)
		}
		var rec struct {
			State string `json:"state"`
		}
		if err := json.Unmarshal([]byte(c.Text), &rec); err != nil {
			t.Fatalf("task record %.300s: %v", c.Text, err)
		}
		if rec.State == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still %s a minute after its cancel", bg.Task, rec.State)
		}
	}
	if got := list(); strings.Contains(strings.Join(got, " "), uri) {
		t.Errorf("the cancelled %s is still listed: %v", bg.Task, got)
	}
}
