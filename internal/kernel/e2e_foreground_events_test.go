package kernel_test

import (
	"encoding/json"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// TestE2ESyncExecPublishesItsFinishedTask: a synchronous exec's foreground
// task publishes both its changes on task.N, running then completed, before
// the exec answers: a request sent after the answer always sees both.
func TestE2ESyncExecPublishesItsFinishedTask(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "fgevents", "")
	ctx := testCtx(t)
	if v, err := c.Exec(ctx, client.ExecParams{Src: "1 + 1"}); err != nil || v.Render != "2" {
		t.Fatalf("exec = %+v, %v", v, err)
	}
	var read struct {
		Events []struct {
			Payload json.RawMessage `json:"payload"`
		} `json:"events"`
	}
	if err := c.Call(ctx, "events.read", map[string]any{"channel": "task.1"}, &read); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, ev := range read.Events {
		var rec fgRec
		if err := json.Unmarshal(ev.Payload, &rec); err != nil {
			t.Fatalf("event %s: %v", ev.Payload, err)
		}
		states = append(states, rec.State)
	}
	if len(states) != 2 || states[0] != "running" || states[1] != "completed" {
		t.Fatalf("task.1 events = %v, want [running completed]", states)
	}
}
