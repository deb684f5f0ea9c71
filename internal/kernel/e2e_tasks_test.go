package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// taskRec is a task record as the wire shows it.
type taskRec struct {
	Task       string  `json:"task"`
	Session    string  `json:"session"`
	State      string  `json:"state"`
	FinishedNS *int64  `json:"finished_ns"`
	ResultRef  *string `json:"result_ref"`
	Error      *string `json:"error"`
	TimedOut   bool    `json:"timed_out"`
}

// procInfo reads a process's parent and state from /proc.
func procInfo(pid int) (ppid int, state byte, comm string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < 0 || end+4 >= len(s) {
		return 0, 0, "", false
	}
	fields := strings.Fields(s[end+2:])
	if len(fields) < 2 {
		return 0, 0, "", false
	}
	ppid, _ = strconv.Atoi(fields[1])
	return ppid, fields[0][0], s[open+1 : end], true
}

// descendants lists the live processes below root whose command is comm.
func descendants(root int, comm string) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	name := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, st, c, ok := procInfo(pid); ok && st != 'Z' {
			parent[pid], name[pid] = pp, c
		}
	}
	var out []int
	for pid := range parent {
		if name[pid] != comm {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

func alive(pid int) bool {
	_, st, _, ok := procInfo(pid)
	return ok && st != 'Z'
}

func TestE2ETaskCancelKillsProcessTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "tasks", "")
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { sleep 30 & sleep 30; wait }", Async: true})
	if err != nil || !res.IsTask() || res.Events != "task."+strings.TrimPrefix(res.Task, "task:") {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	s, err := c.Subscribe(ctx, res.Events, 0)
	if err != nil {
		t.Fatal(err)
	}
	var first taskRec
	if err := json.Unmarshal(next(t, s, 5*time.Second).Payload, &first); err != nil || first.State != "running" || first.Task != res.Task {
		t.Errorf("first task event %+v, %v", first, err)
	}
	var sleeps []int
	for deadline := time.Now().Add(10 * time.Second); len(sleeps) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sleeps = descendants(os.Getpid(), "sleep")
	}
	if len(sleeps) != 2 {
		t.Fatalf("found %d sleep processes, want 2", len(sleeps))
	}
	var rec taskRec
	if err := c.Call(ctx, "task.cancel", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelling" && rec.State != "cancelled" {
		t.Errorf("cancel answered %+v", rec)
	}
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 10000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelled" || rec.TimedOut || rec.FinishedNS == nil {
		t.Errorf("after cancel %+v", rec)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var live []int
		for _, pid := range sleeps {
			if alive(pid) {
				live = append(live, pid)
			}
		}
		if len(live) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep processes %v survived the cancel", live)
		}
	}
	// The task channel told the whole story, ending in cancelled.
	last := first
	for last.State != "cancelled" {
		if err := json.Unmarshal(next(t, s, 5*time.Second).Payload, &last); err != nil {
			t.Fatal(err)
		}
	}
}

func TestE2ETaskMethods(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "tm", "")
	res, err := c.Exec(ctx, client.ExecParams{Src: "var n = 0\nwhile true { n += 1 }", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	var rec taskRec
	start := time.Now()
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 50}, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.TimedOut || rec.State != "running" || time.Since(start) > 5*time.Second {
		t.Errorf("await with timeout = %+v", rec)
	}
	// Suspend and resume are unavailable, after the ownership check.
	for _, m := range []string{"task.suspend", "task.resume"} {
		wantCode(t, m, c.Call(ctx, m, map[string]any{"task": res.Task}, nil), proto.CodeTaskControlUnavailable)
		wantCode(t, m+" unknown", c.Call(ctx, m, map[string]any{"task": "task:999"}, nil), proto.CodeUnknownTask)
	}
	if err := c.Call(ctx, "task.cancel", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task}, &rec); err != nil || rec.State != "cancelled" {
		t.Errorf("await after cancel = %+v, %v", rec, err)
	}

	// A timeout the work beats answers inline, through a task entry.
	v, err := c.Exec(ctx, client.ExecParams{Src: "20 + 22", TimeoutMS: 5000})
	if err != nil || v.IsTask() || v.Render != "42" {
		t.Errorf("exec within timeout = %+v, %v", v, err)
	}
	// One that does not returns the task, which keeps running.
	v, err = c.Exec(ctx, client.ExecParams{Src: "sleep 300ms\n\"late\"", TimeoutMS: 20})
	if err != nil || !v.TimedOut || !v.IsTask() {
		t.Fatalf("exec past timeout = %+v, %v", v, err)
	}
	if err := c.Call(ctx, "task.await", map[string]any{"task": v.Task, "timeout_ms": 10000}, &rec); err != nil || rec.State != "completed" || rec.ResultRef == nil {
		t.Fatalf("timed-out task finished as %+v, %v", rec, err)
	}
	got, err := c.ValueGet(ctx, client.ValueGetParams{Ref: *rec.ResultRef})
	if err != nil || string(got.Value) != `{"$":"str","v":"late"}` {
		t.Errorf("timed-out task result = %+v, %v", got, err)
	}
	var list struct {
		Tasks []taskRec `json:"tasks"`
	}
	if err := c.Call(ctx, "task.list", nil, &list); err != nil || len(list.Tasks) != 3 {
		t.Errorf("task.list = %+v, %v", list, err)
	}
}
