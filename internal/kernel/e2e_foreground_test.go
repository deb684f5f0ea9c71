package kernel_test

import (
	"context"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// fgRec is a task record with the foreground flag.
type fgRec struct {
	Task       string `json:"task"`
	Session    string `json:"session"`
	State      string `json:"state"`
	Foreground bool   `json:"foreground"`
}

// foregroundTask waits until c's task.list shows a running foreground task.
func foregroundTask(t *testing.T, c *client.Client) fgRec {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var list struct {
			Tasks []fgRec `json:"tasks"`
		}
		if err := c.Call(testCtx(t), "task.list", nil, &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Tasks {
			if r.Foreground && r.State == "running" {
				return r
			}
		}
	}
	t.Fatal("no running foreground task in task.list")
	return fgRec{}
}

// TestE2ESyncExecIsCancellableTask: a synchronous `while true { }` is in the
// task list of a second connection of the same principal and session, is
// cancelled from there, and the first connection gets a typed cancelled
// error within 2 s; the session then serves the next exec.
func TestE2ESyncExecIsCancellableTask(t *testing.T) {
	k := newE2E(t)
	first := k.attached(t, "fg", "")
	second := k.attached(t, "fg", "")
	answered := make(chan error, 1)
	go func() {
		_, err := first.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		answered <- err
	}()
	rec := foregroundTask(t, second)
	if rec.Session != "fg" {
		t.Errorf("foreground task %+v: want session fg", rec)
	}
	// Another session of the same principal does not see it.
	other := k.attached(t, "elsewhere", "")
	var list struct {
		Tasks []fgRec `json:"tasks"`
	}
	if err := other.Call(testCtx(t), "task.list", nil, &list); err != nil || len(list.Tasks) != 0 {
		t.Errorf("another session's task.list = %+v, %v; want empty", list, err)
	}
	start := time.Now()
	var cancelled fgRec
	if err := second.Call(testCtx(t), "task.cancel", map[string]string{"task": rec.Task}, &cancelled); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		wantCode(t, "cancelled sync exec", err, proto.CodeRaised)
		var data struct {
			Code string `json:"code"`
		}
		if derr := client.ErrorData(err, &data); derr != nil || data.Code != "cancelled" {
			t.Errorf("cancelled sync exec: %v (data %+v), want language error cancelled", err, data)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the cancelled exec answered after %v, want within 2 s", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled sync exec never answered")
	}
	res, err := first.Exec(testCtx(t), client.ExecParams{Src: "1 + 1"})
	if err != nil || res.Render != "2" {
		t.Fatalf("exec after the cancel = %+v, %v", res, err)
	}
	// Finished sync execs are not kept in the list.
	if err := second.Call(testCtx(t), "task.list", nil, &list); err != nil || len(list.Tasks) != 0 {
		t.Errorf("task.list after the sync execs finished = %+v, %v; want empty", list, err)
	}
}

// TestE2ESyncExecForeignPrincipal: a token principal attached to a session
// of the same name cannot see or cancel the owner's sync exec.
func TestE2ESyncExecForeignPrincipal(t *testing.T) {
	k := newE2E(t)
	owner := k.attached(t, "shared", "")
	watcher := k.attached(t, "shared", "")
	evil := k.attached(t, "shared", k.token(t, "agent:evil"))
	answered := make(chan error, 1)
	go func() {
		_, err := owner.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		answered <- err
	}()
	rec := foregroundTask(t, watcher)
	var list struct {
		Tasks []fgRec `json:"tasks"`
	}
	if err := evil.Call(testCtx(t), "task.list", nil, &list); err != nil || len(list.Tasks) != 0 {
		t.Errorf("foreign task.list = %+v, %v; want empty", list, err)
	}
	wantCode(t, "foreign task.cancel", evil.Call(testCtx(t), "task.cancel", map[string]string{"task": rec.Task}, nil), proto.CodeUnknownTask)
	select {
	case err := <-answered:
		t.Fatalf("the owner's exec ended: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := watcher.Call(testCtx(t), "task.cancel", map[string]string{"task": rec.Task}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled sync exec never answered")
	}
}

// TestE2ESyncExecEndsWithItsConnection: a synchronous exec runs on its
// request's goroutine; closing the connection that sent it still cancels
// it (after the connection drain grace), so it leaves the task list and
// the session serves the next exec.
func TestE2ESyncExecEndsWithItsConnection(t *testing.T) {
	k := newE2E(t)
	first := k.attached(t, "fgclose", "")
	second := k.attached(t, "fgclose", "")
	go func() {
		_, _ = first.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
	}()
	foregroundTask(t, second)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tasks []fgRec `json:"tasks"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := second.Call(testCtx(t), "task.list", nil, &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Tasks) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task.list after the connection closed = %+v; want the sync exec gone", list.Tasks)
		}
	}
	res, err := second.Exec(testCtx(t), client.ExecParams{Src: "1 + 1"})
	if err != nil || res.Render != "2" {
		t.Fatalf("exec after the connection closed = %+v, %v", res, err)
	}
}
