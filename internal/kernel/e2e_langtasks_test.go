package kernel_test

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

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

// langRec is a task record with the fields a language task adds.
type langRec struct {
	taskRec
	Foreground bool   `json:"foreground"`
	Language   bool   `json:"language"`
	Desc       string `json:"desc"`
}

func listTasks(t *testing.T, c *client.Client) map[string]langRec {
	t.Helper()
	var out struct {
		Tasks []langRec `json:"tasks"`
	}
	if err := c.Call(testCtx(t), "task.list", map[string]any{}, &out); err != nil {
		t.Fatal(err)
	}
	m := map[string]langRec{}
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
	if r, ok := listTasks(t, c2)[id]; !ok || r.State != "running" || r.Session != "lang" || !r.Language || r.Desc != "spawn" || r.Foreground {
		t.Fatalf("task.list from the second connection: %+v, want %s a running language task, desc spawn", listTasks(t, c2), id)
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

	// `cmd &` is a language task whose desc is its command as typed;
	// task.cancel from the other connection ends its process.
	if runtime.GOOS == "linux" {
		res, err = c1.Exec(ctx, client.ExecParams{Src: "^/bin/sleep 37 &"})
		if err != nil {
			t.Fatal(err)
		}
		bg := langTaskID(t, res)
		if r := listTasks(t, c2)[bg]; !r.Language || r.Desc != "^/bin/sleep 37" || r.State != "running" {
			t.Errorf("cmd & listed as %+v", r)
		}
		var sleeps []int
		for deadline := time.Now().Add(10 * time.Second); len(sleeps) < 1 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			sleeps = descendants(os.Getpid(), "sleep")
		}
		if len(sleeps) != 1 {
			t.Fatalf("found %d sleep processes, want 1", len(sleeps))
		}
		if err := c2.Call(ctx, "task.cancel", map[string]any{"task": bg}, &rec); err != nil {
			t.Fatal(err)
		}
		if err := c2.Call(ctx, "task.await", map[string]any{"task": bg, "timeout_ms": 10000}, &rec); err != nil || rec.State != "cancelled" {
			t.Errorf("task.await on a cancelled cmd & = %+v, %v", rec, err)
		}
		for deadline := time.Now().Add(5 * time.Second); alive(sleeps[0]); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the sleep of a cancelled cmd & survived")
			}
		}
	}

	// parallel's branches are tasks of the session while they run (the
	// waiting ones are listed and cancellable) but, as the parallel call
	// waits for them, they are not retained after it returns.
	before := len(listTasks(t, c2))
	go func() {
		_, _ = c1.Exec(ctx, client.ExecParams{Src: "parallel(() => { sleep 60s }, () => { sleep 60s })"})
	}()
	var branches []string
	for deadline := time.Now().Add(10 * time.Second); len(branches) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("parallel branches not listed: %v", listTasks(t, c2))
		}
		branches = branches[:0]
		for id, r := range listTasks(t, c2) {
			if r.State == "running" && r.Language && r.Foreground && r.Desc == "parallel branch" {
				branches = append(branches, id)
			}
		}
	}
	if err := c2.Call(ctx, "task.cancel", map[string]any{"task": branches[0]}, &rec); err != nil {
		t.Fatalf("cancelling a branch: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(listTasks(t, c2)) != before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the parallel call failed: %v, want the %d records from before", listTasks(t, c2), before)
		}
	}
	res, err = c1.Exec(ctx, client.ExecParams{Src: "parallel(() => 1, () => 2, () => 3)"})
	if err != nil || !strings.Contains(string(res.Value), `"v":3`) {
		t.Fatalf("parallel: %s, %v", res.Value, err)
	}
	// A branch's record ends a moment after the language side sees it
	// finish; finished branches are then not kept.
	for deadline := time.Now().Add(10 * time.Second); len(listTasks(t, c2)) != before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("task.list after a finished parallel of 3: %v, want the %d records from before", listTasks(t, c2), before)
		}
	}
}
