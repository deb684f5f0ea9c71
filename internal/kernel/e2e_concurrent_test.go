package kernel_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// execRender runs src synchronously on c and returns its render.
func execRender(t *testing.T, c *client.Client, src string) string {
	t.Helper()
	r, err := c.Exec(testCtx(t), client.ExecParams{Src: src})
	if err != nil {
		t.Fatalf("exec %q: %v", src, err)
	}
	return r.Render
}

// taskState is the state of task id as task.get reports it.
func taskState(t *testing.T, c *client.Client, id string) string {
	t.Helper()
	var rec struct {
		State string `json:"state"`
	}
	if err := c.Call(testCtx(t), "task.get", map[string]string{"task": id}, &rec); err != nil {
		t.Fatalf("task.get %s: %v", id, err)
	}
	return rec.State
}

// cancelTask cancels id and waits for it to end.
func cancelTask(t *testing.T, c *client.Client, id string) {
	t.Helper()
	if err := c.Call(testCtx(t), "task.cancel", map[string]string{"task": id}, nil); err != nil {
		t.Fatalf("task.cancel %s: %v", id, err)
	}
	var rec struct {
		State string `json:"state"`
	}
	if err := c.Call(testCtx(t), "task.await", map[string]any{"task": id, "timeout_ms": 10000}, &rec); err != nil || rec.State != "cancelled" {
		t.Fatalf("task.await %s after cancel: %+v %v", id, rec, err)
	}
}

// TestE2EAsyncExecDoesNotHoldSession: while an async exec sleeps (and
// another async exec counts in a busy loop), 20 synchronous execs on the
// same session all answer, in order, with consistent variables; the
// sleeping task is still running after them (had they waited for it, it
// would have finished), and the counting one ends with every increment.
func TestE2EAsyncExecDoesNotHoldSession(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "bg", "")
	execRender(t, c, "var n = 0\nvar m = 0")
	sleeper, err := c.Exec(testCtx(t), client.ExecParams{Src: "^sleep 30", Async: true})
	if err != nil || sleeper.Task == "" {
		t.Fatalf("async exec: %+v %v", sleeper, err)
	}
	counter, err := c.Exec(testCtx(t), client.ExecParams{Src: "for i in 0..20000 { m += 1 }\nm", Async: true})
	if err != nil || counter.Task == "" {
		t.Fatalf("async exec: %+v %v", counter, err)
	}
	for i := 1; i <= 20; i++ {
		if got := execRender(t, c, "n += 1\nn"); got != strconv.Itoa(i) {
			t.Fatalf("exec %d: n = %s", i, got)
		}
		if got := execRender(t, c, "m >= 0 && m <= 20000"); got != "true" {
			t.Fatalf("exec %d: m out of range: %s", i, got)
		}
	}
	if st := taskState(t, c, sleeper.Task); st != "running" {
		t.Errorf("the sleeping task is %s after 20 execs; they waited for it", st)
	}
	var rec struct {
		State string `json:"state"`
	}
	if err := c.Call(testCtx(t), "task.await", map[string]any{"task": counter.Task, "timeout_ms": 60000}, &rec); err != nil || rec.State != "completed" {
		t.Fatalf("counting task: %+v %v", rec, err)
	}
	if got := execRender(t, c, "\"{n} {m}\""); got != "20 20000" {
		t.Errorf("[n, m] = %s, want [20, 20000]", got)
	}
	cancelTask(t, c, sleeper.Task)
}

// TestE2ETimedOutExecDoesNotHoldSession: once timeout_ms turns an exec
// into a task, the next exec answers while the task still runs.
func TestE2ETimedOutExecDoesNotHoldSession(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "timeout", "")
	r, err := c.Exec(testCtx(t), client.ExecParams{Src: "^sleep 30", TimeoutMS: 50})
	if err != nil || !r.TimedOut || r.Task == "" {
		t.Fatalf("timed-out exec: %+v %v", r, err)
	}
	for i := range 5 {
		if got := execRender(t, c, strconv.Itoa(i)+" + 1"); got != strconv.Itoa(i+1) {
			t.Fatalf("exec after the timeout: %s", got)
		}
	}
	if st := taskState(t, c, r.Task); st != "running" {
		t.Errorf("the timed-out task is %s; the execs waited for it", st)
	}
	cancelTask(t, c, r.Task)
}

// TestE2ESpawnAndJobs: spawn and `cmd &` answer at once with running
// tasks, `jobs` lists them, a later exec awaits one, and cancel ends the
// other.
func TestE2ESpawnAndJobs(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "jobs", "")
	if got := execRender(t, c, "let a = spawn { sleep 300ms; 6 * 7 }\nlet b = ^sleep 30 &\na.is_done() || b.is_done()"); got != "false" {
		t.Fatalf("just started: %s", got)
	}
	if got := execRender(t, c, "jobs.map(.state).join(\",\")"); got != "running,running" {
		t.Errorf("jobs states = %s", got)
	}
	if got := execRender(t, c, "a.await()"); got != "42" {
		t.Errorf("a.await() = %s", got)
	}
	if got := execRender(t, c, "b.cancel()\ntry { b.await() } catch e { e.code }"); got != "task_cancelled" {
		t.Errorf("cancelled job: %s", got)
	}
	if got := execRender(t, c, "jobs.map(.state).join(\",\")"); got != "done,cancelled" {
		t.Errorf("jobs statuses = %s", got)
	}
}

// TestE2EJobServerAgent is an agent's workflow: start a small HTTP server
// with `&`, talk to it from a foreground exec, cancel the job, and find
// every process of its tree (the server and a child it started) gone from
// /proc.
func TestE2EJobServerAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	py, err := exec.LookPath("python3")
	if err != nil || !strings.HasPrefix(py, "/usr/bin/") && !strings.HasPrefix(py, "/bin/") {
		if _, err := os.Stat("/usr/bin/python3"); err != nil {
			t.Skip("python3 not available")
		}
	}
	k := newE2E(t)
	server := `import http.server, os, subprocess
child = subprocess.Popen(["sleep", "300"])
s = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
with open("server.tmp", "w") as f:
    f.write("%d %d %d" % (s.server_address[1], os.getpid(), child.pid))
os.rename("server.tmp", "server.info")
s.serve_forever()
`
	fetch := `import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/hello.txt" % sys.argv[1], timeout=10).read().decode())
`
	for name, body := range map[string]string{"server.py": server, "fetch.py": fetch, "hello.txt": "hello from the job\n"} {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := k.attached(t, "agent", "")
	if got := execRender(t, c, "let srv = ^python3 server.py &\nsrv.is_done()"); got != "false" {
		t.Fatalf("server job: %s", got)
	}
	var port string
	var pids []int
	deadline := time.Now().Add(20 * time.Second)
	for port == "" {
		if b, err := os.ReadFile(filepath.Join(k.dir, "server.info")); err == nil {
			f := strings.Fields(string(b))
			port = f[0]
			for _, s := range f[1:] {
				n, _ := strconv.Atoi(s)
				pids = append(pids, n)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start; jobs: %s", execRender(t, c, "jobs"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range pids {
		if !procAlive(pid) {
			t.Fatalf("server process %d is not running", pid)
		}
	}
	if got := execRender(t, c, "(^python3 fetch.py "+port+").out.str()"); !strings.Contains(got, "hello from the job") {
		t.Errorf("fetch through the server: %s", got)
	}
	if got := execRender(t, c, "srv.cancel()\ntry { srv.await() } catch e { e.code }"); got != "task_cancelled" {
		t.Errorf("cancelled server job: %s", got)
	}
	deadline = time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for procAlive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the cancelled job's tree is still alive", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if got := execRender(t, c, "jobs.map(.state).join(\",\")"); got != "cancelled" {
		t.Errorf("jobs after cancel: %s", got)
	}
}

// procAlive reports whether pid exists and is not a zombie.
func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

// TestE2ESessionCloseEndsJobs: a job's processes end when its session
// closes (the kernel shuts down here).
func TestE2ESessionCloseEndsJobs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	k := newE2E(t)
	c := k.attached(t, "closing", "")
	if err := os.WriteFile(filepath.Join(k.dir, "pid.sh"), []byte("echo $$ > job.pid\nexec sleep 300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	execRender(t, c, "let j = ^sh pid.sh &")
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(k.dir, "job.pid")); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not start")
		}
	}
	k.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for procAlive(pid) {
		if ctx.Err() != nil {
			t.Fatalf("job process %d outlived its session", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
