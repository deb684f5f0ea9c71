package kernel_test

import (
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// TestE2EOnHandlerRunsPerEvent: through the kernel, `on(channel,
// handler)` returns a task at once and runs its handler for each event
// emitted afterwards, in order, between the session's other requests; the
// handler's task is a kernel task another connection lists and cancels;
// `parallel` gives its branches' results in order.
func TestE2EOnHandlerRunsPerEvent(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c1 := k.attached(t, "on", "")
	c2 := k.attached(t, "on", "")

	res, err := c1.Exec(ctx, client.ExecParams{Src: "var seen = []\nvar h = on(\"user.x\", ev => { seen = seen + [ev.payload] })\nh"})
	if err != nil {
		t.Fatal(err)
	}
	id := langTaskID(t, res)
	if _, err := c1.Exec(ctx, client.ExecParams{Src: "for i in 0..5 { channel(\"user.x\").emit(i * 10) }"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := c1.Exec(ctx, client.ExecParams{Src: "seen.len()"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Render == "5" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the handler saw %s events, want 5", r.Render)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r, err := c1.Exec(ctx, client.ExecParams{Src: "seen == [0, 10, 20, 30, 40]"}); err != nil || r.Render != "true" {
		t.Fatalf("the handler saw the events out of order or changed: %+v %v", r, err)
	}
	if r, ok := listTasks(t, c2)[id]; !ok || r.State != "running" || !r.Language {
		t.Fatalf("task.list from the second connection: %+v, want %s a running language task", listTasks(t, c2), id)
	}
	var rec taskRec
	if err := c2.Call(ctx, "task.cancel", map[string]any{"task": id}, &rec); err != nil {
		t.Fatal(err)
	}
	if err := c2.Call(ctx, "task.await", map[string]any{"task": id, "timeout_ms": 10000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelled" {
		t.Errorf("the on task after task.cancel: %+v", rec)
	}
	// A cancelled handler sees no more events.
	if _, err := c1.Exec(ctx, client.ExecParams{Src: "channel(\"user.x\").emit(99)"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if r, err := c1.Exec(ctx, client.ExecParams{Src: "seen.len()"}); err != nil || r.Render != "5" {
		t.Errorf("after cancel the handler ran again: %v %v", r, err)
	}
	r, err := c1.Exec(ctx, client.ExecParams{Src: "parallel(() => 1 + 1, () => 2 * 3, () => \"x\") == [2, 6, \"x\"]"})
	if err != nil || r.Render != "true" {
		t.Errorf("parallel's results in order: %+v %v", r, err)
	}
}
