package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// An exec with timeout_ms runs on its request's goroutine and is handed
// over as a task by a timer (execawait.go). These tests hold what it
// answers, publishes and journals to what a synchronous exec does when it
// ends in time, and to what a task handed over does when it does not;
// they pass on the tree before the change too (where the exec ran on a
// goroutine of its own), which is the equivalence.

// awaitKernel starts a kernel that keeps a journal.
func awaitKernel(t *testing.T) *testKernel {
	t.Helper()
	state := filepath.Join(shortDir(t), "state")
	return startKernelWith(t, func(c *Config) { c.StateDir = state })
}

// volatile are the members whose values differ between two runs of the
// same work: times, ids, sessions.
// The hash and length of a value's output vary with its pid.
var volatile = regexp.MustCompile(`"(ts|started_ns|finished_ns|dur_ns|id|seq|pseq|session|pid|hash|len)":("[^"]*"|\d+)`)

func normalize(b []byte) string { return volatile.ReplaceAllString(string(b), `"$1":0`) }

// execTrace is what one exec left behind in a fresh session: its answer,
// the events of its session's task, transcript and render channels, and
// its journal rows, with volatile members zeroed.
type execTrace struct {
	answer  string
	events  map[string][]string
	journal []string
}

func (tr execTrace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "answer %s\n", tr.answer)
	for _, ch := range traceChannels {
		for _, e := range tr.events[ch] {
			fmt.Fprintf(&b, "  %s %s\n", ch, e)
		}
	}
	for _, r := range tr.journal {
		fmt.Fprintf(&b, "  row %s\n", r)
	}
	return b.String()
}

var traceChannels = []string{"task.1", "task.2", "task.3", "session.transcript", "render"}

// answerOf is a response's result, or its error, as one string.
func answerOf(r *rpcResponse) string {
	if r.Error != nil {
		return normalize([]byte(fmt.Sprintf("error %d %s %s", r.Error.Code, r.Error.Message, r.Error.Data)))
	}
	return normalize(r.Result)
}

// traceOf reads the events of c's session and the journal rows of session
// sess, once every task of the session has ended.
func traceOf(t *testing.T, c *client, sess, answer string) execTrace {
	t.Helper()
	waitFor(t, "the session's tasks to end", func() bool {
		var l struct {
			Tasks []struct {
				State string `json:"state"`
			} `json:"tasks"`
		}
		c.ok("task.list", nil, &l)
		for _, r := range l.Tasks {
			if r.State == "running" || r.State == "cancelling" {
				return false
			}
		}
		return true
	})
	tr := execTrace{answer: answer, events: map[string][]string{}}
	// A language task's last record may be published after the exec that
	// awaited it answered: read until every task channel ends in one.
	waitFor(t, "every task's last record", func() bool {
		for _, ch := range traceChannels {
			var res struct {
				Events []json.RawMessage `json:"events"`
			}
			c.ok("events.read", map[string]any{"channel": ch, "since": 0, "limit": 1000}, &res)
			tr.events[ch] = tr.events[ch][:0]
			for _, e := range res.Events {
				tr.events[ch] = append(tr.events[ch], normalize(e))
			}
			if n := len(res.Events); strings.HasPrefix(ch, "task.") && n > 0 &&
				(strings.Contains(tr.events[ch][n-1], `"state":"running"`) || strings.Contains(tr.events[ch][n-1], `"state":"cancelling"`)) {
				return false
			}
		}
		return true
	})
	var rows []json.RawMessage
	c.ok("journal.query", map[string]any{"session": sess}, &rows)
	for _, r := range rows {
		tr.journal = append(tr.journal, normalize(r))
	}
	return tr
}

// TestAwaitedExecInTimeIsSync: an exec with timeout_ms that ends in time
// answers, publishes and journals exactly what the same exec without
// timeout_ms does: values, output, a raised error, a parse error, a
// command that reads its input (the kernel gives it none), interact
// (which needs a terminal the kernel has not), a spawn awaited within it,
// and a change of directory.
func TestAwaitedExecInTimeIsSync(t *testing.T) {
	k := awaitKernel(t)
	if err := os.Mkdir(filepath.Join(k.dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for i, src := range []string{
		`6 * 7`,
		`sh { echo hi; echo there >&2 }` + "\n" + `[3, 1, 2].sort()`,
		`sh { exit 3 }`,
		`1 / 0`,
		`(`,
		`sh { read x; echo "read:$x:$?" }`,
		`cat`,
		`interact sh -c "exit 3"`,
		`let a = spawn { 6 * 7 }` + "\n" + `a.await()`,
		`cd sub` + "\n" + `pwd`,
	} {
		var traces [2]execTrace
		for j, timeout := range []int{0, 60000} {
			name := fmt.Sprintf("s%d-%d", i, j)
			c := k.dial(t)
			c.attach(name, "")
			p := map[string]any{"src": src, "position": "value"}
			if timeout > 0 {
				p["timeout_ms"] = timeout
			}
			traces[j] = traceOf(t, c, name, answerOf(c.call("exec", p)))
		}
		if got, want := traces[1].String(), traces[0].String(); got != want {
			t.Errorf("%q with timeout_ms:\n%s\nwithout:\n%s", src, got, want)
		}
		if len(traces[0].events["task.1"]) == 0 {
			t.Errorf("%q: no task events\n%s", src, traces[0])
		}
	}
}

// awaitRec is a task record as the wire shows it, with foreground.
type awaitRec struct {
	Task       string `json:"task"`
	State      string `json:"state"`
	ResultRef  string `json:"result_ref"`
	Foreground bool   `json:"foreground"`
}

// taskStates are the states of the task records of task.1, with
// (foreground) marking foreground ones.
func taskStates(tr execTrace) []string {
	var out []string
	for _, e := range tr.events["task.1"] {
		var ev struct {
			Payload struct {
				State      string `json:"state"`
				Foreground bool   `json:"foreground"`
				ResultRef  string `json:"result_ref"`
			} `json:"payload"`
		}
		if err := json.Unmarshal([]byte(e), &ev); err != nil {
			return []string{err.Error()}
		}
		if ev.Payload.State == "" {
			continue // the task's output
		}
		s := ev.Payload.State
		if ev.Payload.Foreground {
			s += "(foreground)"
		}
		if ev.Payload.ResultRef != "" {
			s += "->" + ev.Payload.ResultRef
		}
		out = append(out, s)
	}
	return out
}

// TestAwaitedExecTimesOut: an exec that runs past its timeout_ms is
// answered with a running task, timed_out set, while its work goes on;
// the connection is read meanwhile (task.get answers while it runs), the
// next exec of the session runs beside it, and the task ends as a
// retained one with the exec's result: its records, transcript, output
// and journal row are those of the exec, its record turned from
// foreground to retained at the timeout.
func TestAwaitedExecTimesOut(t *testing.T) {
	k := awaitKernel(t)
	gate := filepath.Join(k.dir, "gate")
	for i, tc := range []struct {
		src, value string
	}{
		{`sh { echo early; while [ ! -e gate ]; do sleep 0.01; done; echo late }` + "\n" + `6 * 7`, "42"},
		{`let a = spawn { sh { while [ ! -e gate ]; do sleep 0.01; done }; 40 + 2 }` + "\n" + `a.await()`, "42"},
		{`sh { while [ ! -e gate ]; do sleep 0.01; done }` + "\n" + `1 / 0`, ""},
	} {
		os.Remove(gate)
		name := fmt.Sprintf("late%d", i)
		c := k.dial(t)
		c.attach(name, "")
		var st taskStarted
		c.ok("exec", map[string]any{"src": tc.src, "position": "value", "timeout_ms": 20}, &st)
		if !st.TimedOut || st.Task != "task:1" || st.Events != "task.1" {
			t.Fatalf("%q: answer %+v", tc.src, st)
		}
		var rec awaitRec
		c.ok("task.get", map[string]any{"task": st.Task}, &rec)
		if rec.State != taskRunning || rec.Foreground {
			t.Errorf("%q: task.get while it runs: %+v", tc.src, rec)
		}
		var res execResult
		c.ok("exec", map[string]any{"src": "1 + 1"}, &res)
		if res.Render != "2" {
			t.Errorf("%q: exec beside it: %+v", tc.src, res)
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		c.ok("task.await", map[string]any{"task": st.Task, "timeout_ms": 20000}, &rec)
		wantState := "completed"
		if tc.value == "" {
			wantState = "failed"
		}
		// 1 + 1 took out:1; the exec, ending later, out:2.
		if rec.State != wantState || rec.ResultRef != "out:2" {
			t.Errorf("%q: awaited %+v", tc.src, rec)
		}
		if tc.value != "" {
			var v execResult
			c.ok("value.get", map[string]any{"ref": "out:2"}, &v)
			if !strings.Contains(string(v.Value), `"v":`+tc.value) {
				t.Errorf("%q: out:2 = %+v", tc.src, v)
			}
		}
		tr := traceOf(t, c, name, "")
		want := []string{"running(foreground)", "running", wantState + "->out:2"}
		if got := taskStates(tr); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: task records %v, want %v\n%s", tc.src, got, want, tr)
		}
		if n := len(tr.events["session.transcript"]); n != 2 {
			t.Errorf("%q: %d transcript events, want 2 (1 + 1, the exec)\n%s", tc.src, n, tr)
		} else if last := tr.events["session.transcript"][1]; strings.Contains(last, `"ok":true`) != (tc.value != "") || !strings.Contains(last, `"ref":"out:2"`) {
			t.Errorf("%q: the exec's transcript event %s", tc.src, last)
		}
		if len(tr.journal) != 2 || !strings.Contains(tr.journal[0], `"finished":true`) || !strings.Contains(tr.journal[1], `"finished":true`) {
			t.Errorf("%q: journal rows\n%s", tc.src, tr)
		}
	}
}

// TestAwaitedExecCancelledWhileAwaited: a task.cancel sent on the same
// connection while an exec with timeout_ms runs is read and stops it; the
// exec answers as a cancelled synchronous exec does, and the session goes
// on.
func TestAwaitedExecCancelledWhileAwaited(t *testing.T) {
	k := awaitKernel(t)
	c := k.dial(t)
	c.attach("cancel", "")
	c.sendRaw(`{"jsonrpc":"2.0","id":100,"method":"exec","params":{"src":"sh { sleep 30 }","timeout_ms":60000}}`)
	// task.list, then task.cancel, on the connection the exec runs on.
	var task string
	waitFor(t, "the exec's task", func() bool {
		var l struct {
			Tasks []awaitRec `json:"tasks"`
		}
		c.ok("task.list", nil, &l)
		for _, r := range l.Tasks {
			if r.State == taskRunning && r.Foreground {
				task = r.Task
			}
		}
		return task != ""
	})
	// The cancel and the exec it ends are both answered, in either order
	// (JSON-RPC pairs an answer with its request by id): the exec's can
	// be written first.
	c.sendRaw(`{"jsonrpc":"2.0","id":101,"method":"task.cancel","params":{"task":` + strconv.Quote(task) + `}}`)
	var cancelAnswer, r *rpcResponse
	for range 2 {
		switch a := c.recv(); string(a.ID) {
		case "101":
			cancelAnswer = a
		case "100":
			r = a
		default:
			t.Fatalf("an answer to neither request: id %s", a.ID)
		}
	}
	if cancelAnswer == nil || cancelAnswer.Error != nil {
		t.Fatalf("task.cancel answered %+v", cancelAnswer)
	}
	if r == nil || r.Error == nil || r.Error.Code != proto.CodeRaised || !strings.Contains(string(r.Error.Data), `"code":"cancelled"`) {
		t.Fatalf("cancelled exec answered %+v", r)
	}
	var res execResult
	c.ok("exec", map[string]any{"src": "6 * 7", "timeout_ms": 60000}, &res)
	if res.Render != "42" {
		t.Errorf("after the cancel: %+v", res)
	}
	// A cancel after the timeout stops the retained task.
	var st taskStarted
	c.ok("exec", map[string]any{"src": "sh { sleep 30 }", "timeout_ms": 10}, &st)
	c.ok("task.cancel", map[string]any{"task": st.Task}, nil)
	var after awaitRec // foreground is left out when false
	c.ok("task.await", map[string]any{"task": st.Task, "timeout_ms": 20000}, &after)
	if after.State != taskCancelled || after.Foreground {
		t.Errorf("cancelled after its timeout: %+v", after)
	}
}

// TestAwaitedExecConnectionClosed: a connection closed while an exec with
// timeout_ms runs does not wait for it: the exec is handed over as a
// task, which goes on in its session (a running task holds it), and a
// connection attached to the session later finds, and cancels, it.
func TestAwaitedExecConnectionClosed(t *testing.T) {
	k := awaitKernel(t)
	c := k.dial(t)
	c.attach("closed", "")
	c.sendRaw(`{"jsonrpc":"2.0","id":7,"method":"exec","params":{"src":"sh { sleep 30 }","timeout_ms":60000}}`)
	c2 := k.dial(t)
	c2.attach("closed", "")
	var task string
	waitFor(t, "the exec's task", func() bool {
		var l struct {
			Tasks []awaitRec `json:"tasks"`
		}
		c2.ok("task.list", nil, &l)
		for _, r := range l.Tasks {
			if r.State == taskRunning {
				task = r.Task
			}
		}
		return task != ""
	})
	c.conn.Close()
	waitFor(t, "the closed connection to end", func() bool {
		k.srv.mu.Lock()
		n := len(k.srv.conns)
		k.srv.mu.Unlock()
		return n == 1
	})
	var rec awaitRec
	c2.ok("task.get", map[string]any{"task": task}, &rec)
	if rec.State != taskRunning || rec.Foreground {
		t.Errorf("after its connection closed: %+v", rec)
	}
	c2.ok("task.cancel", map[string]any{"task": task}, nil)
	c2.ok("task.await", map[string]any{"task": task, "timeout_ms": 20000}, &rec)
	if rec.State != taskCancelled {
		t.Errorf("cancelled: %+v", rec)
	}
}

// TestAwaitedExecShutdown: the kernel shuts down while one exec with
// timeout_ms is awaited and another runs on as a task: both are
// cancelled, and Shutdown returns.
func TestAwaitedExecShutdown(t *testing.T) {
	base := shortDir(t)
	k := &testKernel{sock: filepath.Join(base, "k.sock"), dir: filepath.Join(base, "work"), store: filepath.Join(base, "tokens.json")}
	if err := os.Mkdir(k.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(k.sock, true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Version: "test", TokenStore: k.store, Dir: k.dir, StateDir: filepath.Join(base, "state"),
		Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	k.srv = srv
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	c := k.dial(t)
	c.attach("down", "")
	var st taskStarted
	c.ok("exec", map[string]any{"src": "sh { sleep 30 }", "timeout_ms": 10}, &st)
	c2 := k.dial(t)
	c2.attach("down2", "")
	c2.sendRaw(`{"jsonrpc":"2.0","id":9,"method":"exec","params":{"src":"sh { sleep 30 }","timeout_ms":60000}}`)
	waitFor(t, "the awaited exec's task", func() bool {
		var l struct {
			Tasks []awaitRec `json:"tasks"`
		}
		c.attach("down2", "")
		c.ok("task.list", nil, &l)
		return len(l.Tasks) == 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := k.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
}
