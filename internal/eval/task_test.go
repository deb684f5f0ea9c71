package eval

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// within fails the test unless f returns within d (a liveness bound, not
// a speed claim).
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %v", what, d)
	}
}

func closeTasks(t *testing.T, in *Interp) {
	t.Cleanup(func() {
		in.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := in.WaitTasks(ctx); err != nil {
			t.Errorf("tasks still running after Close: %d", in.LiveTasks())
		}
	})
}

// TestSpawnReturnsAtOnce: spawn hands back a running task while its body
// sleeps; await gives the body's value.
func TestSpawnReturnsAtOnce(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	within(t, 5*time.Second, "spawn", func() {
		if got := s.inline("let tk = spawn { sleep 1s; 41 + 1 }\ntk.is_done()"); got != "false" {
			t.Errorf("is_done right after spawn = %s, want false", got)
		}
	})
	if got := s.inline("tk.state"); got != `"running"` {
		t.Errorf("state = %s, want running", got)
	}
	if got := s.inline("tk.await()"); got != "42" {
		t.Errorf("await = %s, want 42", got)
	}
	for src, want := range map[string]string{
		"tk.is_done()": "true", "tk.state": `"done"`, "tk.status": `"completed"`,
		"tk.done": "true", "tk.id": "1", "tk.wait()": "42",
	} {
		if got := s.inline(src); got != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
}

// TestTaskErrorPropagates: await raises the task's error; its status is
// failed.
func TestTaskErrorPropagates(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	_, err := s.eval("let tk = spawn { 1 / 0 }\ntk.await()")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != "div_by_zero" && !strings.Contains(e.Msg, "zero") {
		t.Fatalf("await error = %v, want the division error", err)
	}
	if got := s.inline("tk.status"); got != `"failed"` {
		t.Errorf("status = %s, want failed", got)
	}
}

// TestTaskCancel: cancel ends a sleeping task with cancelled at once.
func TestTaskCancel(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	within(t, 5*time.Second, "cancel", func() {
		got := s.inline("let tk = spawn { sleep 60s }\ntk.cancel()\ntry { tk.await() } catch e { e.code }")
		if got != `"task_cancelled"` {
			t.Errorf("await after cancel = %s, want cancelled", got)
		}
	})
	if got := s.inline("tk.status"); got != `"cancelled"` {
		t.Errorf("status = %s, want cancelled", got)
	}
}

// TestTaskOutlivesEval: a task started by one evaluation keeps running
// after it and is awaited by a later one; a foreground evaluation runs
// while a background loop is busy.
func TestTaskOutlivesEval(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	s.inline("var spins = 0\nlet busy = spawn { while true { spins += 1 } }")
	deadline := time.Now().Add(10 * time.Second)
	for s.inline("spins > 0") != "true" {
		if time.Now().After(deadline) {
			t.Fatal("the busy task never ran")
		}
		time.Sleep(time.Millisecond)
	}
	within(t, 10*time.Second, "foreground beside a busy task", func() {
		for i := range 20 {
			if got := s.inline("let x" + strconv.Itoa(i) + " = " + strconv.Itoa(i) + " + 1\nx" + strconv.Itoa(i)); got != strconv.Itoa(i+1) {
				t.Errorf("exec %d = %s", i, got)
			}
		}
	})
	if got := s.inline("busy.is_done()"); got != "false" {
		t.Errorf("busy loop finished by itself: %s", got)
	}
	if got := s.inline("busy.cancel()\ntry { busy.await() } catch e { e.code }"); got != `"task_cancelled"` {
		t.Errorf("busy cancelled = %s", got)
	}
}

// TestTasksShareVariablesConsistently: a task and the foreground both
// increment one captured variable a thousand times; no increment is lost
// (each statement runs under the session lock).
func TestTasksShareVariablesConsistently(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	src := `var n = 0
let a = spawn { for i in 0..1000 { n += 1 } }
let b = spawn { for i in 0..1000 { n += 1 } }
for i in 0..1000 { n += 1 }
a.await()
b.await()
n`
	if got := s.inline(src); got != "3000" {
		t.Errorf("n = %s, want 3000", got)
	}
}

// TestConcurrentEvals: Evals called from several goroutines at once are
// serialised by the session lock and all see consistent bindings.
func TestConcurrentEvals(t *testing.T) {
	s := newSession(t)
	s.inline("var total = 0")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if _, err := s.in.Eval(context.Background(), "total += 1\nlet g"+strconv.Itoa(g)+" = total"); err != nil {
					t.Error(err)
					return
				}
				_ = s.in.IsBound("total")
				_ = s.in.Bindings()
			}
		}()
	}
	wg.Wait()
	if got := s.inline("total"); got != "200" {
		t.Errorf("total = %s, want 200", got)
	}
}

// TestTaskBound: the session runs at most MaxLiveTasks tasks; one more is
// quota_exceeded naming the budget, and cancelling frees the places.
func TestTaskBound(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	src := "var ts = []\nfor i in 0.." + strconv.Itoa(MaxLiveTasks) + " { ts = ts + [spawn { sleep 60s }] }\nts.len()"
	if got := s.inline(src); got != strconv.Itoa(MaxLiveTasks) {
		t.Fatalf("started %s tasks", got)
	}
	_, err := s.eval("spawn { 1 }")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != "quota_exceeded" || !strings.Contains(e.Msg, BudgetSessionTasks) {
		t.Fatalf("one task past the bound: %v, want quota_exceeded naming %s", err, BudgetSessionTasks)
	}
	within(t, 10*time.Second, "cancelling the tasks", func() {
		s.inline("for tk in ts { tk.cancel() }\nfor tk in ts { try { tk.await() } catch e { null } }")
	})
	if got := s.inline("(spawn { 7 }).await()"); got != "7" {
		t.Errorf("after cancelling: %s", got)
	}
}

// TestJobsTable: `jobs` lists the session's tasks with id, one state and
// the command.
func TestJobsTable(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	s.inline("let a = spawn { 1 }\na.await()\nlet b = spawn { sleep 60s }")
	if got := s.inline("jobs.len()"); got != "2" {
		t.Fatalf("jobs.len() = %s", got)
	}
	if got := s.inline("jobs.map(.state)"); got != `["done", "running"]` {
		t.Errorf("states = %s", got)
	}
	if got := s.inline("jobs.where(.state == \"running\").map(.id)"); got != "[2]" {
		t.Errorf("running ids = %s", got)
	}
	if got := s.inline("b.suspend()\n[b.is_suspended(), b.state, jobs.map(.state)]"); got != `[true, "stopped", ["done", "stopped"]]` {
		t.Errorf("suspended = %s", got)
	}
	if got := s.inline("b.resume()\nb.cancel()\ntry { b.await() } catch e { e.code }"); got != `"task_cancelled"` {
		t.Errorf("cancelled = %s", got)
	}
}

// TestTaskSnapshotsDynamicContext: a task starts with its parent's working
// directory and environment, and its own changes stay its own.
func TestTaskSnapshotsDynamicContext(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	got := s.inline(`let tk = with env: { GREETING: "hi" } { spawn { [(pwd), env.GREETING] } }
tk.await()`)
	if got != `[/work, "hi"]` && got != `["/work", "hi"]` {
		t.Errorf("task context = %s", got)
	}
	if got := s.inline("env?.GREETING"); got != "null" {
		t.Errorf("the task's env leaked: %s", got)
	}
}

// TestExitInTaskEndsOnlyTheTask: exit inside a task ends the task, not
// the session.
func TestExitInTaskEndsOnlyTheTask(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	s.inline("(spawn { exit 3 }).await()")
	if _, ok := s.in.ExitRequested(); ok {
		t.Error("exit in a task asked the session to exit")
	}
}

// TestCloseCancelsTasks: Close cancels every task and they all finish.
func TestCloseCancelsTasks(t *testing.T) {
	s := newSession(t)
	s.inline("let a = spawn { sleep 60s }\nlet b = spawn { while true { } }")
	if n := s.in.LiveTasks(); n != 2 {
		t.Fatalf("live tasks = %d", n)
	}
	s.in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.in.WaitTasks(ctx); err != nil {
		t.Fatalf("tasks did not end after Close: %d live", s.in.LiveTasks())
	}
	if got := s.inline("[a.status, b.status]"); got != `["cancelled", "cancelled"]` {
		t.Errorf("statuses = %s", got)
	}
}

// TestBackgroundCommandKillsTree: `cmd &` starts a job at once; cancelling
// it kills the command's whole process tree.
func TestBackgroundCommandKillsTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	needProgs(t, "sh", "sleep")
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{
		"tree.sh": "sleep 60 &\necho $$ $! > pids\nsleep 60\n",
	})
	closeTasks(t, in)
	eval := func(src string) string {
		t.Helper()
		v, err := in.Eval(context.Background(), src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return value.Inline(v)
	}
	within(t, 5*time.Second, "starting the job", func() {
		eval("let j = ^sh tree.sh &")
	})
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) < 2 {
		if b, err := os.ReadFile(filepath.Join(dir, "pids")); err == nil {
			pids = pids[:0]
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					pids = append(pids, n)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not start its tree")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := eval("jobs.map(.command)"); !strings.Contains(got, "sh tree.sh") {
		t.Errorf("jobs desc = %s", got)
	}
	if got := eval("j.cancel()\ntry { j.await() } catch e { e.code }"); got != `"task_cancelled"` {
		t.Errorf("await of the cancelled job = %s", got)
	}
	deadline = time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the cancelled job is still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestThreadsAreMadeByNewThread pins that no code in the package builds a
// thread except newThread: every thread then has the session's host gate,
// a context and a strand (and child copies one that has them).
func TestThreadsAreMadeByNewThread(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if id, ok := cl.Type.(*ast.Ident); ok && id.Name == "thread" {
					found++
					if fd.Name.Name != "newThread" {
						t.Errorf("%s: %s builds a thread literal; use newThread", fset.Position(cl.Pos()), fd.Name.Name)
					}
				}
				return true
			})
		}
	}
	if found != 1 {
		t.Errorf("found %d thread literals, want exactly the one in newThread", found)
	}
}

// TestWaitKillAndBlockJobs: `{ … } &` starts a job, `kill %N` cancels one,
// `wait %N` awaits one and a bare `wait` waits for them all.
func TestWaitKillAndBlockJobs(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	within(t, 10*time.Second, "jobs", func() {
		if got := s.inline("let a = { sleep 50ms; 1 } &\n{ sleep 60s } &\nkill %2\nwait %1"); got != "1" {
			t.Errorf("wait %%1 = %s", got)
		}
		if got := s.inline("try { wait %2 } catch e { e.code }"); got != `"task_cancelled"` {
			t.Errorf("wait on the killed job = %s", got)
		}
		if got := s.inline("let b = { sleep 50ms; 2 } &\nwait\n[b.is_done(), jobs.map(.state)]"); got != `[true, ["done", "cancelled", "done"]]` {
			t.Errorf("after a bare wait: %s", got)
		}
	})
	if got := s.inline("try { wait %9 } catch e { e.code }"); got != `"not_found"` {
		t.Errorf("wait on an unknown job = %s", got)
	}
}

// TestFgBg: bg lets a suspended job go on; fg resumes and waits for one.
func TestFgBg(t *testing.T) {
	s := newSession(t)
	closeTasks(t, s.in)
	within(t, 10*time.Second, "fg and bg", func() {
		if got := s.inline("let a = { sleep 20ms; 5 } &\na.suspend()\nbg %1\nwait %1"); got != "5" {
			t.Errorf("bg then wait = %s", got)
		}
		if got := s.inline("let b = { sleep 20ms; 6 } &\nb.suspend()\nfg"); got != "6" {
			t.Errorf("fg = %s", got)
		}
	})
	if _, err := s.eval("fg"); err == nil {
		t.Error("fg with no job left succeeded")
	}
}
