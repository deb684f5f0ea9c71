//go:build linux

package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Process containment bounds, stated once.
const (
	// survivorWait is how long a process the kernel should have ended may
	// take to be gone.
	survivorWait = 3 * time.Second
	// shutdownBound is the contract's limit on exiting after SIGTERM.
	shutdownBound = 5 * time.Second
)

// proc is a process identified beyond its pid: (pid, start time).
type proc struct {
	pid   int
	start string
}

// procFields reads the state, session and start time of pid.
func procFields(pid int) (state byte, sid int, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	sid, _ = strconv.Atoi(f[3])
	return f[0][0], sid, f[19], true
}

// escapee waits for the pid the script wrote to path and for that process
// to have moved to a session of its own.
func escapee(t *testing.T, path string) proc {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			if state, sid, start, ok := procFields(pid); ok && sid == pid && state != 'Z' {
				return proc{pid, start}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no escaped process in %s", path)
	return proc{}
}

func (p proc) alive() bool {
	state, _, start, ok := procFields(p.pid)
	return ok && start == p.start && state != 'Z' && state != 'X'
}

// wantNoSurvivor fails (and kills p) unless p is gone within survivorWait.
func wantNoSurvivor(t *testing.T, p proc, after string) {
	t.Helper()
	deadline := time.Now().Add(survivorWait)
	for time.Now().Before(deadline) {
		if !p.alive() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	t.Fatalf("process %d survived %s", p.pid, after)
}

// escapeSrc is a command whose shell puts a child in a new session, writes
// its pid to path, and then waits (or, without wait, exits at once, leaving
// the child behind).
func escapeSrc(path string, wait bool) string {
	src := "sh { setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $! > " + path
	if wait {
		src += "; sleep 100"
	}
	return src + " }"
}

func containment(t *testing.T, k *Kernel, c *client.Client) *client.Containment {
	t.Helper()
	info, err := c.KernelInfo(Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if info.Containment == nil {
		t.Fatal("kernel.info has no containment")
	}
	return info.Containment
}

// TestProcessInfoReportsContainment: on this machine class (root, cgroup
// v2 hierarchy present) every mechanism is active.
func TestProcessInfoReportsContainment(t *testing.T) {
	k := Start(t, Options{})
	c := containment(t, k, k.Owner(t))
	t.Logf("containment: %+v", *c)
	if !c.Subreaper || !c.Pdeathsig || !c.Walk || !c.Supervisor {
		t.Errorf("containment %+v: want subreaper, pdeathsig, walk and supervisor", *c)
	}
	if c.Cgroup == "" {
		t.Error("containment.cgroup is empty; want v2:<dir>, v1:<dir> or none")
	}
	if os.Geteuid() == 0 && c.Cgroup == "none" {
		t.Error("running as root with cgroup hierarchies mounted, yet no cgroup is used")
	}
}

// TestProcessCancelEndsSetsidEscape: task.cancel of
// `sh { setsid sleep 100 & sleep 100 }` ends the setsid'd child too.
func TestProcessCancelEndsSetsidEscape(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	ctx := Ctx(t)
	pidFile := filepath.Join(k.Dir, "escaped.pid")
	res, err := owner.Exec(ctx, client.ExecParams{Src: escapeSrc(pidFile, true), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	p := escapee(t, pidFile)
	var rec struct {
		State string `json:"state"`
	}
	if err := owner.Call(ctx, "task.cancel", map[string]string{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if err := owner.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 5000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelled" {
		t.Errorf("task state %q after cancel, want cancelled", rec.State)
	}
	wantNoSurvivor(t, p, "task.cancel")
	k.Alive(t)
}

// TestProcessCommandsAfterStubbornCancel: task.cancel of a command that
// ignores SIGTERM ends it through its cgroup (cgroup.kill), and the
// session's next commands still run to their end. Linux kills a child
// cloned into a cgroup that was once killed that way, so the kernel must
// not reuse that cgroup for the next command.
func TestProcessCommandsAfterStubbornCancel(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	ctx := Ctx(t)
	pidFile := filepath.Join(k.Dir, "stubborn.pid")
	res, err := owner.Exec(ctx, client.ExecParams{Src: `^/bin/sh -c "trap '' TERM; echo $$ > ` + pidFile + `; while :; do sleep 1; done"`, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	p := escapee(t, pidFile)
	var rec struct {
		State string `json:"state"`
	}
	if err := owner.Call(ctx, "task.cancel", map[string]string{"task": res.Task}, &rec); err != nil {
		t.Fatal(err)
	}
	if err := owner.Call(ctx, "task.await", map[string]any{"task": res.Task, "timeout_ms": 20000}, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "cancelled" {
		t.Errorf("task state %q after cancel, want cancelled", rec.State)
	}
	wantNoSurvivor(t, p, "task.cancel")
	for i := range 6 {
		if res, err := owner.Exec(ctx, client.ExecParams{Src: "^/bin/true"}); err != nil {
			t.Fatalf("command %d after the cancel: %+v, %v", i, res, err)
		}
	}
	k.Alive(t)
}

// TestProcessSIGTERMLeavesNoSurvivors: a background child left by a finished
// command, and one under a running task, both end when the kernel is
// stopped with SIGTERM, which it obeys within 5 s.
func TestProcessSIGTERMLeavesNoSurvivors(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	ctx := Ctx(t)
	left := filepath.Join(k.Dir, "left.pid")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: escapeSrc(left, false)}); err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(k.Dir, "running.pid")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: escapeSrc(running, true), Async: true}); err != nil {
		t.Fatal(err)
	}
	ps := []proc{escapee(t, left), escapee(t, running)}
	start := time.Now()
	k.ExpectExit()
	if err := k.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-k.Exited():
	case <-time.After(2 * shutdownBound):
		t.Fatal("kernel still running 10 s after SIGTERM")
	}
	took := time.Since(start)
	t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
	if took > shutdownBound {
		t.Errorf("kernel took %v to exit after SIGTERM, want under %v", took, shutdownBound)
	}
	for _, p := range ps {
		wantNoSurvivor(t, p, "SIGTERM of the kernel")
	}
}

// TestProcessSIGKILLLeavesNoSurvivors: when the kernel is killed with
// SIGKILL, its supervisor ends what it left: a setsid'd child under a
// running task, one left behind by a finished command, and the task's
// shell itself.
func TestProcessSIGKILLLeavesNoSurvivors(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	ctx := Ctx(t)
	cg := containment(t, k, owner).Cgroup
	left := filepath.Join(k.Dir, "left.pid")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: escapeSrc(left, false)}); err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(k.Dir, "running.pid")
	shell := filepath.Join(k.Dir, "shell.pid")
	if _, err := owner.Exec(ctx, client.ExecParams{Async: true,
		Src: "sh { echo $$ > " + shell + "; setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $! > " + running + "; sleep 100 }"}); err != nil {
		t.Fatal(err)
	}
	ps := []proc{escapee(t, left), escapee(t, running)}
	if sh := waitPidFile(t, shell); sh.alive() {
		ps = append(ps, sh)
	}
	// Give a supervisor that follows trees through /proc (no cgroup v2)
	// time to have seen them.
	time.Sleep(600 * time.Millisecond)
	k.ExpectExit()
	if err := k.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.Exited()
	for _, p := range ps {
		wantNoSurvivor(t, p, "SIGKILL of the kernel")
	}
	if dir, ok := strings.CutPrefix(cg, "v2:"); ok {
		waitGoneDir(t, dir)
	} else if dir, ok := strings.CutPrefix(cg, "v1:"); ok {
		waitGoneDir(t, dir)
	}
}

// waitPidFile waits for a pid written by a script.
func waitPidFile(t *testing.T, path string) proc {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		_, _, start, _ := procFields(pid)
		return proc{pid, start}
	}
	t.Fatalf("no pid in %s", path)
	return proc{}
}

// waitGoneDir waits for the supervisor to have removed the kernel's cgroup.
func waitGoneDir(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(survivorWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
	}
	t.Errorf("the kernel's cgroup %s is still there after its supervisor ran", dir)
}

// TestProcessShutdownWithin5s: SIGTERM with a pure evaluation loop running
// synchronously, a task running a command, and a 2 MiB parse in flight:
// the kernel exits 0 within 5 s and leaves nothing running.
func TestProcessShutdownWithin5s(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	ctx := Ctx(t)
	task := filepath.Join(k.Dir, "task.pid")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: escapeSrc(task, true), Async: true}); err != nil {
		t.Fatal(err)
	}
	p := escapee(t, task)
	loop := k.Attach(t, "loop", "")
	looping := make(chan error, 1)
	go func() {
		_, err := loop.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		looping <- err
	}()
	// A big parse: work no cancellation reaches (before parse work is
	// bounded it ran for seconds; after, it fails fast).
	parser := k.Client(t)
	go func() { _, _ = parser.Parse(context.Background(), strings.Repeat("1;", 1<<20)) }()
	time.Sleep(300 * time.Millisecond) // the loop and the parse are running
	start := time.Now()
	k.ExpectExit()
	if err := k.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-k.Exited():
	case <-time.After(2 * shutdownBound):
		t.Fatal("kernel still running 10 s after SIGTERM")
	}
	took := time.Since(start)
	t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
	if took > shutdownBound {
		t.Errorf("kernel took %v to exit after SIGTERM, want under %v; stderr:\n%s", took, shutdownBound, k.Stderr())
	}
	k.waitMu.Lock()
	st := k.state
	k.waitMu.Unlock()
	if st == nil || st.ExitCode() != 0 {
		t.Errorf("kernel exit after SIGTERM: %v, want status 0; stderr:\n%s", st, k.Stderr())
	}
	wantNoSurvivor(t, p, "shutdown")
	select {
	case err := <-looping:
		if err == nil {
			t.Error("the endless loop returned a value")
		}
	case <-time.After(5 * time.Second):
		t.Error("the looping exec never got an answer or a closed connection")
	}
}

// TestProcessSyncExecCancelledFromSecondConnection: a synchronous
// `while true { }` of a token principal shows in task.list of its second
// connection (same principal and session) as a running foreground task, is
// cancelled from there, and the first connection gets the typed cancelled
// error within 2 s, with the owner's heartbeat served throughout.
func TestProcessSyncExecCancelledFromSecondConnection(t *testing.T) {
	k := Start(t, Options{})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:loop")
	first := k.Attach(t, "s1", tok)
	second := k.Attach(t, "s1", tok)
	ctx := Ctx(t)
	answered := make(chan error, 1)
	go func() {
		_, err := first.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		answered <- err
	}()
	type rec struct {
		Task       string `json:"task"`
		State      string `json:"state"`
		Foreground bool   `json:"foreground"`
	}
	var fg rec
	for deadline := time.Now().Add(5 * time.Second); fg.Task == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var list struct {
			Tasks []rec `json:"tasks"`
		}
		if err := second.Call(ctx, "task.list", nil, &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Tasks {
			if r.Foreground && r.State == "running" {
				fg = r
			}
		}
	}
	if fg.Task == "" {
		t.Fatal("the sync exec is not in the second connection's task.list")
	}
	start := time.Now()
	if err := second.Call(ctx, "task.cancel", map[string]string{"task": fg.Task}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		WantLangCode(t, err, "cancelled")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("answered %v after the cancel, want within 2 s", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled sync exec never answered")
	}
	time.Sleep(100 * time.Millisecond) // let the heartbeat beat
	hb.Stop(t)
	k.Alive(t)
}

// TestProcessDeniedPrincipalClockAndFacts: a token principal, denied every
// effect, gets the typed denial (-32010, before anything runs) for reading
// the clock or a system fact, and explain names exactly the effect refused;
// pure evaluation still works for it.
func TestProcessDeniedPrincipalClockAndFacts(t *testing.T) {
	k := Start(t, Options{})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "facts", k.Token(t, "agent:nofacts"))
	ctx := Ctx(t)
	for _, tc := range []struct{ src, effect string }{
		{"now", "time"}, {"today()", "time"}, {"every(1s)", "time"}, {"1s.ago()", "time"}, {"1h.from_now()", "time"},
		{"os.cpus()", "sys_read:cpus"}, {"os.platform()", "sys_read:platform"}, {"os.arch()", "sys_read:arch"},
		{"os.pid()", "sys_read:pid"}, {"os.hostname()", "sys_read:hostname"},
	} {
		_, err := c.Exec(ctx, client.ExecParams{Src: tc.src})
		WantCode(t, err, proto.CodeLeashDenied)
		msg := err.Error()
		var plan struct {
			Effects []struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"effects"`
		}
		if err := c.Call(ctx, "explain", map[string]string{"src": tc.src}, &plan); err != nil {
			t.Fatalf("explain %q: %v", tc.src, err)
		}
		var got []string
		for _, e := range plan.Effects {
			s := e.Kind
			if e.Name != "" {
				s += ":" + e.Name
			}
			got = append(got, s)
		}
		if len(got) != 1 || got[0] != tc.effect {
			t.Errorf("explain %q lists %v, want exactly [%s] (the denial said %q)", tc.src, got, tc.effect, msg)
		}
	}
	res, err := c.Exec(ctx, client.ExecParams{Src: "[1, 2, 3].map(x => x * 2).len()"})
	if err != nil || res.Render != "3" {
		t.Fatalf("pure evaluation for the denied principal = %+v, %v", res, err)
	}
	time.Sleep(100 * time.Millisecond) // let the heartbeat beat
	hb.Stop(t)
	k.Alive(t)
}

// TestProcessIdleCloseEndsBackgroundChildren: a background child a finished
// command left (in a session of its own) lives while its session does and
// is ended when the session is closed for idleness.
func TestProcessIdleCloseEndsBackgroundChildren(t *testing.T) {
	k := Start(t, Options{Flags: []string{"--session-idle", "300ms"}})
	c := k.Attach(t, "bg", "")
	left := filepath.Join(k.Dir, "left.pid")
	if _, err := c.Exec(Ctx(t), client.ExecParams{Src: escapeSrc(left, false)}); err != nil {
		t.Fatal(err)
	}
	p := escapee(t, left)
	time.Sleep(600 * time.Millisecond)
	if !p.alive() {
		t.Fatal("the background child died while its session was held")
	}
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for p.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	wantNoSurvivor(t, p, "the idle close of its session")
	k.Alive(t)
}
