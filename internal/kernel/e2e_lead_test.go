package kernel_test

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// TestE2ELeaderHandsReadingOver: an exec runs on the goroutine that read
// it (lead.go), so while a `while true { }` runs, only the hand-over lets
// the same connection's next requests be read. A task.list and the
// task.cancel of that exec sent on the same connection are answered, the
// exec ends cancelled, and the connection goes on serving execs.
func TestE2ELeaderHandsReadingOver(t *testing.T) {
	k := newE2E(t)
	first := k.attached(t, "lead", "")
	watcher := k.attached(t, "lead", "")
	answered := make(chan error, 1)
	go func() {
		_, err := first.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		answered <- err
	}()
	rec := foregroundTask(t, watcher)
	var list struct {
		Tasks []fgRec `json:"tasks"`
	}
	if err := first.Call(testCtx(t), "task.list", nil, &list); err != nil {
		t.Fatalf("task.list on the running exec's connection: %v", err)
	}
	if len(list.Tasks) != 1 || list.Tasks[0].Task != rec.Task {
		t.Errorf("task.list on the running exec's connection = %+v; want %s", list.Tasks, rec.Task)
	}
	if err := first.Call(testCtx(t), "task.cancel", map[string]string{"task": rec.Task}, nil); err != nil {
		t.Fatalf("task.cancel on the running exec's connection: %v", err)
	}
	select {
	case err := <-answered:
		if err == nil {
			t.Fatal("the cancelled exec answered a value")
		}
	case <-testCtx(t).Done():
		t.Fatal("the cancelled exec never answered")
	}
	for range 3 {
		res, err := first.Exec(testCtx(t), client.ExecParams{Src: "1 + 1"})
		if err != nil || res.Render != "2" {
			t.Fatalf("exec after the hand-over = %+v, %v; want 2", res, err)
		}
	}
}
