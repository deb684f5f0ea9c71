//go:build linux

package hostile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/proto"
)

// killKernel ends k with SIGKILL (sig) or SIGTERM and waits for it.
func killKernel(t *testing.T, k *Kernel, sig syscall.Signal) {
	t.Helper()
	k.ExpectExit()
	if err := k.Cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-k.Exited()
}

// processGone waits until pid is no process (or a zombie); the deadline
// only keeps a kernel that leaks it from hanging the test.
func processGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || zombie(stat) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d of the killed kernel's task still runs: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// taskPrinted waits until task's output matches want (the program printed
// it); the deadline only keeps a broken kernel from hanging the test.
func taskPrinted(t *testing.T, c *client.Client, task string, want *regexp.Regexp) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ch, err := c.TaskOutput(Ctx(t), task, 0, 0)
		if err != nil {
			t.Fatalf("task.output: %v", err)
		}
		all, err := client.ChunkBytes(ch)
		if err != nil {
			t.Fatal(err)
		}
		if want.Match(all) {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s printed %q, never %q", task, all, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readOutput reads task's whole output (the chunks up to eof) and the
// last chunk.
func readOutput(t *testing.T, c *client.Client, task string) ([]byte, *proto.TaskOutputChunk) {
	t.Helper()
	var all []byte
	var off int64
	for i := 0; ; i++ {
		ch, err := c.TaskOutput(Ctx(t), task, off, 0)
		if err != nil {
			t.Fatalf("task.output %s at %d: %v", task, off, err)
		}
		b, err := client.ChunkBytes(ch)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
		if ch.EOF || ch.Next == off || i > 64 {
			return all, ch
		}
		off = ch.Next
	}
}

var pidLine = regexp.MustCompile(`pid=(\d+)\n`)

// TestRestartInterruptsTasks: a program printing text and binary runs as a
// task when the kernel is killed with SIGKILL; a kernel started on the
// same state directory reports it interrupted in task.get and task.list,
// task.output gives back exactly what it printed before the kill, its
// process is gone, a task that had finished keeps its output, and new
// tasks are numbered above the old ones. Then the same after SIGTERM.
func TestRestartInterruptsTasks(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { restartInterrupts(t, sig) })
	}
}

func restartInterrupts(t *testing.T, sig syscall.Signal) {
	k := Start(t, Options{})
	ctx := Ctx(t)
	c := k.Attach(t, "work", "")
	done, err := c.Exec(ctx, client.ExecParams{Src: `sh { printf 'finished\n\377\000' }`, Async: true})
	if err != nil || !done.IsTask() {
		t.Fatalf("async exec = %+v, %v", done, err)
	}
	if _, err := c.TaskAwait(ctx, done.Task, 0); err != nil {
		t.Fatal(err)
	}
	src := `sh { printf 'text line\n'; printf '\001\377\376\000'; echo; echo "pid=$$"; exec sleep 600 }`
	res, err := c.Exec(ctx, client.ExecParams{Src: src, Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	printed := taskPrinted(t, c, res.Task, pidLine)
	m := pidLine.FindSubmatch(printed)
	if m == nil {
		t.Fatalf("no pid in %q", printed)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	want := []byte("text line\n\x01\xff\xfe\x00\npid=" + string(m[1]) + "\n")
	if !bytes.Equal(printed, want) {
		t.Fatalf("printed %q, want %q", printed, want)
	}
	killKernel(t, k, sig)
	processGone(t, pid)

	k2 := Start(t, Options{StateDir: k.StateDir})
	c2 := k2.Attach(t, "work", "")
	rec, err := c2.TaskGet(ctx, res.Task)
	if err != nil || rec.State != "interrupted" || rec.FinishedNs == nil || rec.Error == nil {
		t.Fatalf("task.get of the killed task = %+v, %v; want interrupted", rec, err)
	}
	got, last := readOutput(t, c2, res.Task)
	if !bytes.Equal(got, want) || !last.EOF || last.Dropped != 0 {
		t.Fatalf("task.output after the restart = %q (last %+v), want %q at eof", got, last, want)
	}
	fin, last := readOutput(t, c2, done.Task)
	if string(fin) != "finished\n\xff\x00" || !last.EOF {
		t.Errorf("the finished task's output after the restart = %q (%+v)", fin, last)
	}
	if rec, err := c2.TaskGet(ctx, done.Task); err != nil || rec.State != "completed" {
		t.Errorf("the finished task after the restart = %+v, %v", rec, err)
	}
	list, err := c2.TaskList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, r := range list.Tasks {
		states = append(states, r.Task+"="+r.State)
	}
	if !slices.Contains(states, res.Task+"=interrupted") || !slices.Contains(states, done.Task+"=completed") {
		t.Errorf("task.list after the restart = %v", states)
	}
	// Owner-scoped as ever: another session, another principal know
	// nothing of it.
	_, err = k2.Attach(t, "elsewhere", "").TaskGet(ctx, res.Task)
	WantCode(t, err, proto.CodeUnknownTask)
	_, err = k2.Attach(t, "work", k2.Token(t, "stranger")).TaskOutput(ctx, res.Task, 0, 0)
	WantCode(t, err, proto.CodeUnknownTask)
	// A new task's id is above the old ones, and its spool is its own.
	nres, err := c2.Exec(ctx, client.ExecParams{Src: `sh { echo new }`, Async: true})
	if err != nil || !nres.IsTask() {
		t.Fatalf("async exec = %+v, %v", nres, err)
	}
	oldN, _ := strconv.Atoi(strings.TrimPrefix(res.Task, "task:"))
	newN, _ := strconv.Atoi(strings.TrimPrefix(nres.Task, "task:"))
	if newN <= oldN {
		t.Errorf("new task %s after the restart, not above %s", nres.Task, res.Task)
	}
	if _, err := c2.TaskAwait(ctx, nres.Task, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOutput(t, c2, nres.Task); string(got) != "new\n" {
		t.Errorf("new task's output = %q", got)
	}
	if got, _ := readOutput(t, c2, res.Task); !bytes.Equal(got, want) {
		t.Errorf("the interrupted task's output changed: %q", got)
	}
	k2.Alive(t)
}

// TestRestartTaskRecordsBound: --task-records crossed ten times: a kernel
// persisting at most 4 task records ends 40 tasks; after a restart at most
// 4 are known (the newest), the others are UNKNOWN_TASK, at most 4 spool
// files are left, and the kernel serves on.
func TestRestartTaskRecordsBound(t *testing.T) {
	const bound = 4
	flags := []string{"--task-records", strconv.Itoa(bound), "--principal-task-records", strconv.Itoa(bound)}
	k := Start(t, Options{Flags: flags})
	ctx := Ctx(t)
	c := k.Attach(t, "many", "")
	var ids []string
	for i := range 10 * bound {
		res, err := c.Exec(ctx, client.ExecParams{Src: "sh { echo line-" + strconv.Itoa(i) + " }", Async: true})
		if err != nil || !res.IsTask() {
			t.Fatalf("async exec %d = %+v, %v", i, res, err)
		}
		if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Task)
	}
	killKernel(t, k, syscall.SIGKILL)
	k2 := Start(t, Options{StateDir: k.StateDir, Flags: flags})
	c2 := k2.Attach(t, "many", "")
	list, err := c2.TaskList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) == 0 || len(list.Tasks) > bound {
		t.Fatalf("%d task records after the restart, want 1..%d", len(list.Tasks), bound)
	}
	newest := ids[len(ids)-1]
	if got, _ := readOutput(t, c2, newest); string(got) != "line-"+strconv.Itoa(len(ids)-1)+"\n" {
		t.Errorf("the newest task's output after the restart = %q", got)
	}
	_, err = c2.TaskGet(ctx, ids[0])
	WantCode(t, err, proto.CodeUnknownTask)
	files, _ := filepath.Glob(filepath.Join(k.StateDir, "output", "*.out"))
	if len(files) > bound {
		t.Errorf("%d spool files after the restart, want at most %d", len(files), bound)
	}
	k2.Alive(t)
}

// storedCheckpoint is the part of a session checkpoint file the tests
// look at.
type storedCheckpoint struct {
	Session  string   `json:"session"`
	Dir      []byte   `json:"dir"`
	Env      [][]byte `json:"env"`
	Bindings []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"bindings"`
	Dropped []string `json:"dropped"`
}

// waitCheckpoint waits until session's checkpoint file satisfies ok (the
// writer works off the request path); the deadline only keeps a broken
// kernel from hanging the test.
func waitCheckpoint(t *testing.T, stateDir, session string, ok func(storedCheckpoint) bool) (storedCheckpoint, int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last storedCheckpoint
	for {
		files, _ := filepath.Glob(filepath.Join(stateDir, "sessions", "*.ckpt"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var c storedCheckpoint
			if json.Unmarshal(b, &c) == nil && c.Session == session {
				last = c
				if ok(c) {
					return c, int64(len(b))
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %q never checkpointed as expected; last: %+v", session, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c storedCheckpoint) has(name string) bool {
	for _, b := range c.Bindings {
		if b.Name == name {
			return true
		}
	}
	return false
}

func (c storedCheckpoint) value(name string) string {
	for _, b := range c.Bindings {
		if b.Name == name {
			return strings.ReplaceAll(string(b.Value), " ", "")
		}
	}
	return ""
}

func (c storedCheckpoint) hasEnv(kv string) bool {
	for _, e := range c.Env {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// TestRestartRestoresSession: a session with bindings, a directory, an
// environment variable and a closure; the kernel is killed with SIGKILL;
// attaching the same (principal, session) to a kernel on the same state
// directory gives back the bindings (the closure dropped and named), the
// directory and the variable, and its out:N still reads. Another session
// name, and a session closed for idleness, restore nothing.
func TestRestartRestoresSession(t *testing.T) {
	k := Start(t, Options{})
	ctx := Ctx(t)
	sub := filepath.Join(k.Dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	c := k.Attach(t, "work", "")
	first, err := c.Exec(ctx, client.ExecParams{Src: "[1, 2]"})
	if err != nil || first.Ref == "" {
		t.Fatalf("[1, 2] = %+v, %v", first, err)
	}
	for _, src := range []string{"let x = [1, 2]", "cd sub", `env.FOO = "bar"`, "let f = a => a + 1", "var n = 41", "n = n + 1"} {
		if _, err := c.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	realSub, err := filepath.EvalSymlinks(sub)
	if err != nil {
		t.Fatal(err)
	}
	waitCheckpoint(t, k.StateDir, "work", func(c storedCheckpoint) bool {
		return string(c.Dir) == realSub && c.hasEnv("FOO=bar") && c.has("x") && c.value("n") == `{"$":"int","v":42}` && slices.Contains(c.Dropped, "f")
	})
	killKernel(t, k, syscall.SIGKILL)

	k2 := Start(t, Options{StateDir: k.StateDir})
	c2 := k2.Client(t)
	res, err := c2.Attach(ctx, client.AttachParams{Session: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored == nil || res.Restored.Bindings != 2 || !slices.Equal(res.Restored.Dropped, []string{"f"}) {
		t.Fatalf("attach after the restart: restored = %+v, want 2 bindings and f dropped", res.Restored)
	}
	if res.CWD.Display != realSub {
		t.Errorf("attach after the restart: cwd %q, want %q", res.CWD.Display, realSub)
	}
	check, err := c2.Exec(ctx, client.ExecParams{Src: `x == [1, 2] && n == 42 && env.FOO == "bar"`})
	if err != nil || !strings.Contains(string(check.Value), "true") {
		both, _ := c2.Exec(ctx, client.ExecParams{Src: `[x, n, env.FOO]`})
		t.Fatalf("state after the restart: %+v, %v (x, n, FOO: %s)", check, err, both.Value)
	}
	if pwd, err := c2.Exec(ctx, client.ExecParams{Src: "pwd"}); err != nil || !strings.Contains(string(pwd.Value), realSub) {
		t.Errorf("pwd after the restart: %+v, %v", pwd, err)
	}
	// n is still a var, x still a let.
	if _, err := c2.Exec(ctx, client.ExecParams{Src: "n = 1"}); err != nil {
		t.Errorf("assigning the restored var: %v", err)
	}
	if _, err := c2.Exec(ctx, client.ExecParams{Src: "x = 1"}); err == nil {
		t.Error("assigning the restored let succeeded")
	}
	v, err := c2.ValueGet(ctx, client.ValueGetParams{Ref: first.Ref})
	if err != nil || !strings.Contains(string(v.Value), `"v":2`) {
		t.Errorf("value.get %s after the restart = %+v, %v", first.Ref, v, err)
	}
	// Another session name restores nothing.
	other, err := k2.Client(t).Attach(ctx, client.AttachParams{Session: "other"})
	if err != nil || other.Restored != nil {
		t.Errorf("attach of a new session = %+v, %v", other, err)
	}
	k2.Alive(t)
}

// TestRestartCheckpointBound: --checkpoint-bytes crossed ten times: a
// session binding a string ten times the bound keeps checkpoints within
// the bound, and after a restart the big binding is dropped and named while
// the small one comes back.
func TestRestartCheckpointBound(t *testing.T) {
	const bound = 64 << 10
	flags := []string{"--checkpoint-bytes", "64KiB"}
	k := Start(t, Options{Flags: flags})
	ctx := Ctx(t)
	c := k.Attach(t, "big", "")
	for _, src := range []string{`let big = "` + strings.Repeat("a", 10*bound) + `"`, "let small = 7", "let later = 8"} {
		if _, err := c.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("%.40s: %v", src, err)
		}
	}
	_, size := waitCheckpoint(t, k.StateDir, "big", func(c storedCheckpoint) bool {
		return c.has("small") && c.has("later") && slices.Contains(c.Dropped, "big")
	})
	if size > 2*bound+1<<20 {
		t.Errorf("checkpoint file of %d bytes for a bound of %d", size, bound)
	}
	killKernel(t, k, syscall.SIGKILL)
	k2 := Start(t, Options{StateDir: k.StateDir, Flags: flags})
	res, err := k2.Client(t).Attach(ctx, client.AttachParams{Session: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored == nil || res.Restored.Bindings != 2 || !slices.Contains(res.Restored.Dropped, "big") {
		t.Fatalf("restored = %+v, want small and later back and big dropped", res.Restored)
	}
	k2.Alive(t)
}

// TestRestartIdleSessionNotRestored: a session closed for idleness deletes
// its checkpoint and task records, so after a restart the same name starts
// afresh.
func TestRestartIdleSessionNotRestored(t *testing.T) {
	flags := []string{"--session-idle", "1s"}
	k := Start(t, Options{Flags: flags})
	ctx := Ctx(t)
	c := k.Attach(t, "brief", "")
	if _, err := c.Exec(ctx, client.ExecParams{Src: "let kept = 1"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { echo done }", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	waitCheckpoint(t, k.StateDir, "brief", func(c storedCheckpoint) bool { return c.has("kept") })
	c.Close()
	// Closed for idleness: its checkpoint goes. A task that printed keeps
	// its session from idling for kernel.IdleOutputWindow after it ends,
	// so the close comes a minute after the task's end.
	deadline := time.Now().Add(kernel.IdleOutputWindow + 2*time.Minute)
	for {
		files, _ := filepath.Glob(filepath.Join(k.StateDir, "sessions", "*.ckpt"))
		spools, _ := filepath.Glob(filepath.Join(k.StateDir, "output", "*.out"))
		if len(files) == 0 && len(spools) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session's checkpoint or spools are still there: %v %v", files, spools)
		}
		time.Sleep(50 * time.Millisecond)
	}
	killKernel(t, k, syscall.SIGKILL)
	k2 := Start(t, Options{StateDir: k.StateDir, Flags: flags})
	c2 := k2.Client(t)
	att, err := c2.Attach(ctx, client.AttachParams{Session: "brief"})
	if err != nil || att.Restored != nil {
		t.Fatalf("attach after the idle close and a restart = %+v, %v; want nothing restored", att, err)
	}
	_, err = c2.TaskGet(ctx, res.Task)
	WantCode(t, err, proto.CodeUnknownTask)
	k2.Alive(t)
}
