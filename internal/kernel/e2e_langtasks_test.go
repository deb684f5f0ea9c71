package kernel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// langTaskID is the kernel task id in the wire value of a language task
// handle (an exec answering `spawn { … }`).
func langTaskID(t *testing.T, res *client.ExecResult) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(res.Value, &v); err != nil {
		t.Fatalf("task value %s: %v", res.Value, err)
	}
	id, _ := v["id"].(string)
	if !strings.HasPrefix(id, "task:") {
		t.Fatalf("task value %s has no kernel task id", res.Value)
	}
	return id
}

func listTasks(t *testing.T, c *client.Client) map[string]taskRec {
	t.Helper()
	var out struct {
		Tasks []taskRec `json:"tasks"`
	}
	if err := c.Call(testCtx(t), "task.list", map[string]any{}, &out); err != nil {
		t.Fatal(err)
	}
	m := map[string]taskRec{}
	for _, r := range out.Tasks {
		m[r.Task] = r
	}
	return m
}

// TestE2ELanguageTasksInRegistry: a spawn's handle is a kernel task. A
// second connection of the same session sees it in task.list and
// task.get, cancels it with task.cancel and awaits it with task.await;
// the language side sees the cancellation; a finished spawn is awaited
// as completed; `cmd &` and parallel branches are listed too.
func TestE2ELanguageTasksInRegistry(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c1 := k.attached(t, "lang", "")
	c2 := k.attached(t, "lang", "")

	res, err := c1.Exec(ctx, client.ExecParams{Src: "var sp = spawn { sleep 60s }\nsp"})
	if err != nil {
		t.Fatal(err)
	}
	id := langTaskID(t, res)
	if r, ok := listTasks(t, c2)[id]; !ok || r.State != "running" || r.Session != "lang" {
		t.Fatalf("task.list from the second connection: %v, want %s running", listTasks(t, c2), id)
	}
	var rec taskRec
	if err := c2.Call(ctx, "task.get", map[string]any{"task": id}, &rec); err != nil || rec.State != "running" {
		t.Fatalf("task.get = %+v, %v", rec, err)
	}
	if err := c2.Call(ctx, "task.cancel", map[string]any{"task": id}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelling" && rec.State != "cancelled" {
		t.Errorf("task.cancel answered %+v", rec)
	}
	if err := c2.Call(ctx, "task.await", map[string]any{"task": id, "timeout_ms": 10000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelled" || rec.TimedOut || rec.FinishedNS == nil {
		t.Errorf("task.await after cancel: %+v", rec)
	}
	res, err = c1.Exec(ctx, client.ExecParams{Src: "sp.status"})
	if err != nil || !strings.Contains(string(res.Value), `"cancelled"`) {
		t.Errorf("sp.status after task.cancel = %s, %v", res.Value, err)
	}

	res, err = c1.Exec(ctx, client.ExecParams{Src: "var q = spawn { 6 * 7 }\nq.await()\nq"})
	if err != nil {
		t.Fatal(err)
	}
	done := langTaskID(t, res)
	if err := c2.Call(ctx, "task.await", map[string]any{"task": done, "timeout_ms": 10000}, &rec); err != nil || rec.State != "completed" {
		t.Errorf("task.await on a finished spawn = %+v, %v", rec, err)
	}

	// A failing spawn is failed, with its error.
	res, err = c1.Exec(ctx, client.ExecParams{Src: "var f = spawn { error(\"boom\") }\ntry { f.await() } catch e { null }\nf"})
	if err != nil {
		t.Fatal(err)
	}
	failed := langTaskID(t, res)
	if err := c2.Call(ctx, "task.await", map[string]any{"task": failed, "timeout_ms": 10000}, &rec); err != nil || rec.State != "failed" || rec.Error == nil {
		t.Errorf("task.await on a failed spawn = %+v, %v", rec, err)
	}

	// parallel's branches are tasks of the session too; after it returns
	// they are finished records.
	before := len(listTasks(t, c2))
	res, err = c1.Exec(ctx, client.ExecParams{Src: "parallel(() => 1, () => 2, () => 3)"})
	if err != nil {
		t.Fatalf("parallel: %v", err)
	}
	after := listTasks(t, c2)
	if len(after) != before+3 {
		t.Errorf("task.list after parallel of 3: %d records, want %d", len(after), before+3)
	}
	for id, r := range after {
		if r.State == "running" {
			// The registry entry settles just after the language task.
			if err := c2.Call(ctx, "task.await", map[string]any{"task": id, "timeout_ms": 10000}, &r); err != nil || r.State != "completed" {
				t.Errorf("parallel branch %s: %+v, %v", id, r, err)
			}
		}
	}
}
