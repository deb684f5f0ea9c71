package kernel_test

import (
	"context"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
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

// TestE2EHandOverAfterShortRequests: the hand-over timer is left armed
// by short requests (handtimer.go), so a long exec that starts just after
// a short one finds it due before the long one has run HandoffDelay; it
// must still be handed over (the timer re-armed for what remains). Each
// round first lets the connection idle for a few HandoffFallbacks, so that
// the timer fires with nothing leading and is disarmed; the short exec then
// arms it and the long exec starts well within HandoffDelay of that.
// (Without the re-arm, the rounds' task.cancel is never read.)
func TestE2EHandOverAfterShortRequests(t *testing.T) {
	k := newE2E(t)
	first := k.attached(t, "lead2", "")
	watcher := k.attached(t, "lead2", "")
	for round := range 3 {
		for range 40 {
			res, err := first.Exec(testCtx(t), client.ExecParams{Src: "1 + 1"})
			if err != nil || res.Render != "2" {
				t.Fatalf("round %d: short exec = %+v, %v; want 2", round, res, err)
			}
		}
		time.Sleep(3 * kernel.HandoffFallback)
		if _, err := first.Exec(testCtx(t), client.ExecParams{Src: "1 + 1"}); err != nil {
			t.Fatal(err)
		}
		answered := make(chan error, 1)
		go func() {
			_, err := first.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
			answered <- err
		}()
		rec := foregroundTask(t, watcher)
		if err := first.Call(testCtx(t), "task.cancel", map[string]string{"task": rec.Task}, nil); err != nil {
			t.Fatalf("round %d: task.cancel on the running exec's connection: %v", round, err)
		}
		select {
		case err := <-answered:
			if err == nil {
				t.Fatalf("round %d: the cancelled exec answered a value", round)
			}
		case <-testCtx(t).Done():
			t.Fatalf("round %d: the cancelled exec never answered", round)
		}
	}
}
