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
	Suspended  bool    `json:"suspended"`
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

// waitProcStates waits until every pid's /proc state satisfies want.
func waitProcStates(t *testing.T, pids []int, what string, want func(byte) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ok := true
		for _, pid := range pids {
			if _, st, _, alive := procInfo(pid); !alive || !want(st) {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v not %s within 5s", pids, what)
		}
	}
}

// TestE2ETaskSuspendResume suspends a task running a shell with two
// background sleeps and checks, in /proc, that every process stops; resume
// continues them; the record and the task channel say suspended; and a
// cancel ends the suspended task at once.
func TestE2ETaskSuspendResume(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "suspend", "")
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { sleep 30 & sleep 30; wait }", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	s, err := c.Subscribe(ctx, res.Events, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sleeps []int
	for deadline := time.Now().Add(10 * time.Second); len(sleeps) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sleeps = descendants(os.Getpid(), "sleep")
	}
	if len(sleeps) != 2 {
		t.Fatalf("found %d sleep processes, want 2", len(sleeps))
	}
	stopped := func(st byte) bool { return st == 'T' || st == 't' }

	var rec taskRec
	if err := c.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Suspended || rec.State != "running" {
		t.Errorf("suspend answered %+v", rec)
	}
	waitProcStates(t, sleeps, "stopped", stopped)
	if err := c.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, &rec); err != nil || !rec.Suspended {
		t.Errorf("second suspend = %+v, %v", rec, err)
	}
	if err := c.Call(ctx, "task.get", map[string]any{"task": res.Task}, &rec); err != nil || !rec.Suspended {
		t.Errorf("task.get while suspended = %+v, %v", rec, err)
	}
	for ev := (taskRec{}); !ev.Suspended; {
		if err := json.Unmarshal(next(t, s, 5*time.Second).Payload, &ev); err != nil {
			t.Fatal(err)
		}
	}

	rec = taskRec{} // "suspended" is omitted when false
	if err := c.Call(ctx, "task.resume", map[string]any{"task": res.Task}, &rec); err != nil || rec.Suspended || rec.State != "running" {
		t.Fatalf("resume = %+v, %v", rec, err)
	}
	waitProcStates(t, sleeps, "running again", func(st byte) bool { return !stopped(st) })

	// Another session cannot touch it.
	other := k.attached(t, "suspend-other", "")
	wantCode(t, "foreign suspend", other.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, nil), proto.CodeUnknownTask)

	// Suspended, then cancelled: the group is continued so SIGTERM lands.
	if err := c.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	waitProcStates(t, sleeps, "stopped", stopped)
	if err := c.Call(ctx, "task.cancel", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 10000}, &rec); err != nil || rec.State != "cancelled" {
		t.Fatalf("await after cancel = %+v, %v", rec, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if !alive(sleeps[0]) && !alive(sleeps[1]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep processes %v survived the cancel", sleeps)
		}
	}
	wantCode(t, "suspend after end", c.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, nil), proto.CodeTaskControlUnavailable)
}

// TestE2ETaskSuspendHoldsEvaluation suspends a task that loops until a
// file appears, creates the file, and checks the task does not notice
// until it is resumed: suspension holds in-process evaluation, not only
// processes.
func TestE2ETaskSuspendHoldsEvaluation(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "hold", "")
	flag := filepath.Join(t.TempDir(), "flag")
	src := "var n = 0\nwhile !path(" + strconv.Quote(flag) + ").exists() { n += 1\nsleep 2ms }\n\"released\""
	res, err := c.Exec(ctx, client.ExecParams{Src: src, Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	var rec taskRec
	// An async exec answers before its task has begun evaluating, and
	// task.suspend refuses a task that has not started its work: ask
	// again until it has.
	for {
		err := c.Call(ctx, "task.suspend", map[string]any{"task": res.Task}, &rec)
		if err != nil && strings.Contains(err.Error(), "has not started its work yet") && ctx.Err() == nil {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if err != nil || !rec.Suspended {
			t.Fatalf("suspend = %+v, %v", rec, err)
		}
		break
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rec = taskRec{}
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 300}, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.TimedOut || rec.State != "running" || !rec.Suspended {
		t.Fatalf("a suspended task saw the flag: %+v", rec)
	}
	if err := c.Call(ctx, "task.resume", map[string]any{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	rec = taskRec{}
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 10000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "completed" || rec.ResultRef == nil {
		t.Fatalf("after resume %+v", rec)
	}
	v, err := c.ValueGet(ctx, client.ValueGetParams{Ref: *rec.ResultRef, Format: "render"})
	if err != nil || v.Render == nil || *v.Render != "released" {
		t.Errorf("result %+v, %v", v, err)
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
	// In-process work can be suspended and resumed; unknown tasks cannot.
	for _, m := range []string{"task.suspend", "task.resume"} {
		rec = taskRec{}
		if err := c.Call(ctx, m, map[string]any{"task": res.Task}, &rec); err != nil || rec.Suspended != (m == "task.suspend") {
			t.Errorf("%s = %+v, %v", m, rec, err)
		}
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
	// The async task and the timed-out one are kept; the exec that
	// finished within its timeout left no record.
	if err := c.Call(ctx, "task.list", nil, &list); err != nil || len(list.Tasks) != 2 ||
		list.Tasks[0].Task != res.Task || list.Tasks[1].Task != v.Task {
		t.Errorf("task.list = %+v, %v; want %s and %s", list, err, res.Task, v.Task)
	}
}

// TestE2ETaskOutputSoFar: task.get (and a task.await that times out) of
// a running exec shows the tail of what it has printed so far; once it
// ends, the record has no output field.
func TestE2ETaskOutputSoFar(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "output", "")
	res, err := c.Exec(ctx, client.ExecParams{Src: "^sh -c 'echo first; echo second; sleep 30'", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	type withOut struct {
		State  string `json:"state"`
		Output *struct {
			Text      string `json:"text"`
			Bytes     int64  `json:"bytes"`
			Truncated bool   `json:"truncated"`
		} `json:"output"`
	}
	var rec withOut
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec = withOut{}
		if err := c.Call(ctx, "task.get", map[string]any{"task": res.Task}, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Output != nil && strings.Contains(rec.Output.Text, "second") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task.get never showed the output so far: %+v", rec)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if rec.State != "running" || rec.Output.Text != "first\nsecond\n" || rec.Output.Bytes != 13 || rec.Output.Truncated {
		t.Fatalf("running task's output %+v %+v", rec, *rec.Output)
	}
	var awaited withOut
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 50}, &awaited); err != nil ||
		awaited.Output == nil || awaited.Output.Text != "first\nsecond\n" {
		t.Fatalf("timed-out task.await = %+v, %v", awaited, err)
	}
	if err := c.Call(ctx, "task.cancel", map[string]any{"task": res.Task}, nil); err != nil {
		t.Fatal(err)
	}
	var done withOut
	if err := c.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 10000}, &done); err != nil || done.State != "cancelled" || done.Output != nil {
		t.Fatalf("cancelled task = %+v, %v", done, err)
	}
}
