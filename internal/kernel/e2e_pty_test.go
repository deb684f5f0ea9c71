package kernel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// ptyScreen is pty.read's answer.
type ptyScreen struct {
	PtyID  string `json:"pty_id"`
	Cmd    string `json:"cmd"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Cursor struct {
		Row, Col int
		Hidden   bool
	} `json:"cursor"`
	Screen  []string `json:"screen"`
	Changed bool     `json:"changed"`
	Alive   bool     `json:"alive"`
	Exit    *struct {
		Status *int    `json:"status"`
		Signal *string `json:"signal"`
	} `json:"exit"`
	Pid        int      `json:"pid"`
	Scrollback []string `json:"scrollback"`
}

func (s ptyScreen) text() string { return strings.Join(s.Screen, "\n") }

type ptyOpened struct {
	PtyID  string `json:"pty_id"`
	Cmd    string `json:"cmd"`
	Events string `json:"events"`
	Pid    int    `json:"pid"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Alive  bool   `json:"alive"`
}

func ptyOpen(t *testing.T, c *client.Client, params map[string]any) ptyOpened {
	t.Helper()
	var o ptyOpened
	if err := c.Call(testCtx(t), proto.MethodPTYOpen, params, &o); err != nil {
		t.Fatalf("pty.open %v: %v", params, err)
	}
	if !strings.HasPrefix(o.PtyID, "pty:") || o.Pid <= 0 || !o.Alive || o.Events != "pty."+strings.TrimPrefix(o.PtyID, "pty:") {
		t.Fatalf("pty.open answered %+v", o)
	}
	t.Cleanup(func() { c.Call(testCtx(t), proto.MethodPTYClose, map[string]any{"pty_id": o.PtyID}, nil) })
	return o
}

func ptySend(t *testing.T, c *client.Client, id string, input any) {
	t.Helper()
	if err := c.Call(testCtx(t), proto.MethodPTYSend, map[string]any{"pty_id": id, "input": input}, nil); err != nil {
		t.Fatalf("pty.send %v: %v", input, err)
	}
}

// ptyWait reads (waiting server-side for changes) until cond holds, or
// fails after a generous liveness timeout.
func ptyWait(t *testing.T, c *client.Client, id, what string, cond func(ptyScreen) bool) ptyScreen {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var s ptyScreen
		if err := c.Call(testCtx(t), proto.MethodPTYRead, map[string]any{"pty_id": id, "wait_ms": 500}, &s); err != nil {
			t.Fatalf("pty.read: %v", err)
		}
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the screen never matched:\n%s", what, s.text())
		}
	}
}

// hasRow: a row of the screen is exactly row (not a command line
// naming it).
func hasRow(row string) func(ptyScreen) bool {
	return func(s ptyScreen) bool {
		for _, r := range s.Screen {
			if r == row {
				return true
			}
		}
		return false
	}
}

func shows(sub string) func(ptyScreen) bool {
	return func(s ptyScreen) bool { return strings.Contains(s.text(), sub) }
}

// TestPTYShellRoundTrip: sh on a terminal echoes what it is sent; the
// read has the pinned shape; the program's exit status is reported; close
// reaps and reports it too; list shows the PTY until it is closed.
func TestPTYShellRoundTrip(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "pty", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "sh", "cols": 60, "rows": 12, "env": map[string]string{"PS1": "$ "}})
	if o.Cols != 60 || o.Rows != 12 || o.Cmd != "sh" {
		t.Fatalf("opened %+v", o)
	}
	ptySend(t, c, o.PtyID, []any{"echo round-", "trip-$((6*7)); pwd", map[string]string{"key": "Enter"}})
	// pwd prints the session's directory after the echo.
	s := ptyWait(t, c, o.PtyID, "echo", func(s ptyScreen) bool {
		return strings.Contains(s.text(), "round-trip-42\n"+k.dir+"\n")
	})
	if s.PtyID != o.PtyID || s.Cmd != "sh" || s.Cols != 60 || s.Rows != 12 || len(s.Screen) != 12 || !s.Alive || s.Exit != nil || s.Pid != o.Pid {
		t.Fatalf("read %+v", s)
	}
	var list struct {
		Ptys []ptyOpened `json:"ptys"`
	}
	if err := c.Call(testCtx(t), proto.MethodPTYList, nil, &list); err != nil || len(list.Ptys) != 1 || list.Ptys[0].PtyID != o.PtyID || !list.Ptys[0].Alive {
		t.Fatalf("list %+v %v", list, err)
	}
	// Lines that scrolled off are kept; styles are there on request.
	ptySend(t, c, o.PtyID, "i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo line-$i; done; printf '\\033[1mBOLD\\033[0m\\n'\r")
	s = ptyWait(t, c, o.PtyID, "lines", hasRow("BOLD"))
	var sb struct {
		Scrollback []string `json:"scrollback"`
		Styles     [][]struct {
			Col   int      `json:"col"`
			Len   int      `json:"len"`
			Attrs []string `json:"attrs"`
		} `json:"styles"`
		Screen []string `json:"screen"`
	}
	if err := c.Call(testCtx(t), proto.MethodPTYRead, map[string]any{"pty_id": o.PtyID, "scrollback": 3, "styles": true}, &sb); err != nil {
		t.Fatal(err)
	}
	if len(sb.Scrollback) != 3 || len(sb.Styles) != 12 {
		t.Fatalf("scrollback %q, %d styled rows", sb.Scrollback, len(sb.Styles))
	}
	for i, row := range sb.Screen {
		if row == "BOLD" && (len(sb.Styles[i]) != 1 || sb.Styles[i][0].Len != 4 || len(sb.Styles[i][0].Attrs) != 1 || sb.Styles[i][0].Attrs[0] != "bold") {
			t.Errorf("styles of the BOLD row: %+v", sb.Styles[i])
		}
	}
	// A read that waits for a change returns with the change another
	// connection's send made.
	c2 := k.attached(t, "pty", "")
	got := make(chan ptyScreen, 1)
	go func() {
		var w ptyScreen
		c.Call(testCtx(t), proto.MethodPTYRead, map[string]any{"pty_id": o.PtyID, "until_change": true, "wait_ms": 20000}, &w)
		got <- w
	}()
	time.Sleep(100 * time.Millisecond)
	if err := c2.Call(testCtx(t), proto.MethodPTYSend, map[string]any{"pty_id": o.PtyID, "input": "echo waited-for\r"}, nil); err != nil {
		t.Fatal(err)
	}
	if w := <-got; !w.Changed || !strings.Contains(w.text(), "waited-for") {
		t.Fatalf("the waiting read returned changed=%v:\n%s", w.Changed, w.text())
	}
	ptySend(t, c, o.PtyID, "exit 7\r")
	s = ptyWait(t, c, o.PtyID, "exit", func(s ptyScreen) bool { return !s.Alive })
	if s.Exit == nil || s.Exit.Status == nil || *s.Exit.Status != 7 || s.Exit.Signal != nil {
		t.Fatalf("exit %+v", s.Exit)
	}
	var closed struct {
		PtyID string `json:"pty_id"`
		Exit  struct {
			Status *int    `json:"status"`
			Signal *string `json:"signal"`
		} `json:"exit"`
	}
	if err := c.Call(testCtx(t), proto.MethodPTYClose, map[string]any{"pty_id": o.PtyID}, &closed); err != nil {
		t.Fatal(err)
	}
	if closed.PtyID != o.PtyID || closed.Exit.Status == nil || *closed.Exit.Status != 7 {
		t.Fatalf("close %+v", closed)
	}
	if err := c.Call(testCtx(t), proto.MethodPTYList, nil, &list); err != nil || len(list.Ptys) != 0 {
		t.Fatalf("list after close %+v %v", list, err)
	}
	err := c.Call(testCtx(t), proto.MethodPTYRead, map[string]any{"pty_id": o.PtyID}, nil)
	wantCode(t, "read after close", err, proto.CodeUnknownPTY)
}

// TestPTYVi: vi opened on a file, keys typed (insert, text, Escape, a
// cursor move), the screen shows the text and the cursor where vi put
// it, and :wq writes the file.
func TestPTYVi(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "vi", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "vi", "args": []string{"-u", "NONE", "-N", "-i", "NONE", "notes.txt"}, "cols": 80, "rows": 24})
	ptyWait(t, c, o.PtyID, "vi started", func(s ptyScreen) bool { return strings.HasPrefix(s.Screen[1], "~") })
	ptySend(t, c, o.PtyID, []any{"i", "hello pty", map[string]string{"key": "Enter"}, "second line", map[string]string{"key": "Escape"}})
	s := ptyWait(t, c, o.PtyID, "typed", func(s ptyScreen) bool {
		return s.Screen[0] == "hello pty" && s.Screen[1] == "second line" && s.Cursor.Row == 1 && s.Cursor.Col == 10
	})
	ptySend(t, c, o.PtyID, []any{map[string]string{"key": "Up"}, "0"})
	s = ptyWait(t, c, o.PtyID, "cursor moved", func(s ptyScreen) bool { return s.Cursor.Row == 0 && s.Cursor.Col == 0 })
	ptySend(t, c, o.PtyID, []any{":wq", map[string]string{"key": "Enter"}})
	s = ptyWait(t, c, o.PtyID, "vi exited", func(s ptyScreen) bool { return !s.Alive })
	if s.Exit == nil || s.Exit.Status == nil || *s.Exit.Status != 0 {
		t.Fatalf("vi exit %+v", s.Exit)
	}
	b, err := os.ReadFile(filepath.Join(k.dir, "notes.txt"))
	if err != nil || string(b) != "hello pty\nsecond line\n" {
		t.Fatalf("notes.txt = %q, %v", b, err)
	}
}

// TestPTYResizeAndCtrlC: stty size sees a resize; Ctrl-C reaches the
// foreground program, whose trap reports it and sets the exit status.
func TestPTYResizeAndCtrlC(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "resize", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "sh", "cols": 40, "rows": 10, "env": map[string]string{"PS1": "$ "}})
	ptySend(t, c, o.PtyID, "stty size\r")
	ptyWait(t, c, o.PtyID, "size", shows("10 40"))
	var r ptyOpened
	if err := c.Call(testCtx(t), proto.MethodPTYResize, map[string]any{"pty_id": o.PtyID, "cols": 132, "rows": 43}, &r); err != nil || r.Cols != 132 || r.Rows != 43 {
		t.Fatalf("resize %+v %v", r, err)
	}
	ptySend(t, c, o.PtyID, "stty size\r")
	s := ptyWait(t, c, o.PtyID, "new size", shows("43 132"))
	if s.Cols != 132 || s.Rows != 43 || len(s.Screen) != 43 {
		t.Fatalf("after resize %dx%d, %d rows", s.Cols, s.Rows, len(s.Screen))
	}
	ptySend(t, c, o.PtyID, "exec sh -c \"trap 'echo got-SIGINT; exit 9' INT; echo waiting; while :; do sleep 0.1; done\"\r")
	// The output row (the prompt may be printed before it, the echo of
	// the typed line before that); not the command line naming it.
	ptyWait(t, c, o.PtyID, "waiting", func(s ptyScreen) bool {
		for _, r := range s.Screen {
			if strings.HasSuffix(r, "waiting") && !strings.Contains(r, "echo") {
				return true
			}
		}
		return false
	})
	ptySend(t, c, o.PtyID, map[string]string{"key": "Ctrl-C"})
	s = ptyWait(t, c, o.PtyID, "interrupted", func(s ptyScreen) bool { return !s.Alive })
	if !strings.Contains(s.text(), "got-SIGINT") || s.Exit == nil || s.Exit.Status == nil || *s.Exit.Status != 9 {
		t.Fatalf("exit %+v, screen:\n%s", s.Exit, s.text())
	}
}

// TestPTYErrors: unknown ids, another session's and another principal's
// PTY are UNKNOWN_PTY; bad dimensions, input and params INVALID_PARAMS; a
// program that cannot start PTY_SPAWN_FAILED; pty.* needs attachment.
func TestPTYErrors(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "mine", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "sh"})
	other := k.attached(t, "other", "")
	agent := k.attached(t, "mine", k.token(t, "agent:pty"))
	for _, id := range []string{"pty:999", "pty:0", "pty:x", "out:1", "", "pty:01"} {
		err := c.Call(testCtx(t), proto.MethodPTYRead, map[string]any{"pty_id": id}, nil)
		wantCode(t, "read "+id, err, proto.CodeUnknownPTY)
	}
	for name, cl := range map[string]*client.Client{"other session": other, "other principal": agent} {
		for _, m := range []string{proto.MethodPTYRead, proto.MethodPTYSend, proto.MethodPTYResize, proto.MethodPTYClose} {
			err := cl.Call(testCtx(t), m, map[string]any{"pty_id": o.PtyID, "input": "x", "cols": 10, "rows": 10}, nil)
			wantCode(t, name+" "+m, err, proto.CodeUnknownPTY)
		}
		var list struct {
			Ptys []ptyOpened `json:"ptys"`
		}
		if err := cl.Call(testCtx(t), proto.MethodPTYList, nil, &list); err != nil || len(list.Ptys) != 0 {
			t.Errorf("%s lists %+v %v", name, list, err)
		}
	}
	for _, d := range [][2]int{{0, 10}, {10, 0}, {1001, 10}, {10, 1001}, {-5, 10}} {
		err := c.Call(testCtx(t), proto.MethodPTYOpen, map[string]any{"cmd": "sh", "cols": d[0], "rows": d[1]}, nil)
		wantCode(t, fmt.Sprintf("open %v", d), err, proto.CodeInvalidParams)
		err = c.Call(testCtx(t), proto.MethodPTYResize, map[string]any{"pty_id": o.PtyID, "cols": d[0], "rows": d[1]}, nil)
		wantCode(t, fmt.Sprintf("resize %v", d), err, proto.CodeInvalidParams)
	}
	for _, in := range []any{map[string]string{"key": "Hyper-Q"}, 42, []any{[]any{"x"}}, map[string]string{"bytes": "!!"}} {
		err := c.Call(testCtx(t), proto.MethodPTYSend, map[string]any{"pty_id": o.PtyID, "input": in}, nil)
		wantCode(t, fmt.Sprintf("send %v", in), err, proto.CodeInvalidParams)
	}
	err := c.Call(testCtx(t), proto.MethodPTYOpen, map[string]any{}, nil)
	wantCode(t, "open without cmd", err, proto.CodeInvalidParams)
	err = c.Call(testCtx(t), proto.MethodPTYOpen, map[string]any{"cmd": "no-such-program-xyz"}, nil)
	wantCode(t, "open a missing program", err, proto.CodePTYSpawnFailed)
	err = c.Call(testCtx(t), proto.MethodPTYOpen, map[string]any{"cmd": filepath.Join(k.dir, "missing")}, nil)
	wantCode(t, "open a missing path", err, proto.CodePTYSpawnFailed)
	unattached := k.dial(t)
	err = unattached.Call(testCtx(t), proto.MethodPTYList, nil, nil)
	wantCode(t, "list unattached", err, proto.CodeNotAttached)
	// The PTY still answers its owner.
	ptySend(t, c, o.PtyID, "echo still-here\r")
	ptyWait(t, c, o.PtyID, "owner", shows("still-here"))
	// Its events are in its own session's scope only.
	for deadline := time.Now().Add(10 * time.Second); ; {
		evs, err := c.EventsRead(testCtx(t), o.Events, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the owner reads no events of %s", o.Events)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if evs, err := other.EventsRead(testCtx(t), o.Events, 0, 100); err != nil || len(evs) != 0 {
		t.Errorf("another session reads %d events of %s (%v)", len(evs), o.Events, err)
	}
	if evs, err := agent.EventsRead(testCtx(t), o.Events, 0, 100); err != nil || len(evs) != 0 {
		t.Errorf("another principal reads %d events of %s (%v)", len(evs), o.Events, err)
	}
}

// TestPTYPushEvents: a subscriber to pty.N is told of a screen change
// after a send, and of the exit, without polling.
func TestPTYPushEvents(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "push", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "sh", "env": map[string]string{"PS1": "$ "}})
	ptyWait(t, c, o.PtyID, "prompt", shows("$"))
	sub, err := c.SubscribeLive(testCtx(t), o.Events)
	if err != nil {
		t.Fatal(err)
	}
	// Let any change still pending from the prompt go by.
	time.Sleep(200 * time.Millisecond)
	drain(sub)
	ptySend(t, c, o.PtyID, "echo pushed\r")
	ev := next(t, sub, 10*time.Second)
	var p struct {
		PtyID string `json:"pty_id"`
		Kind  string `json:"kind"`
		Alive bool   `json:"alive"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil || p.PtyID != o.PtyID || p.Kind != "screen" || !p.Alive {
		t.Fatalf("event %s: %+v %v", ev.Payload, p, err)
	}
	ptySend(t, c, o.PtyID, "exit 4\r")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-sub.Events():
			var x struct {
				Kind string `json:"kind"`
				Exit *struct {
					Status *int `json:"status"`
				} `json:"exit"`
			}
			json.Unmarshal(ev.Payload, &x)
			if x.Kind != "exit" {
				continue
			}
			if x.Exit == nil || x.Exit.Status == nil || *x.Exit.Status != 4 {
				t.Fatalf("exit event %s", ev.Payload)
			}
			return
		case <-deadline:
			t.Fatal("no exit event")
		}
	}
}

func drain(s *client.Subscription) {
	for {
		select {
		case <-s.Events():
		default:
			return
		}
	}
}

// TestPTYLess: less pages through a file with PageDown and the arrow keys
// (in the cursor-key mode it asks the terminal for) and quits with q.
func TestPTYLess(t *testing.T) {
	k := newE2E(t)
	var lines strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&lines, "line-%d\n", i)
	}
	if err := os.WriteFile(filepath.Join(k.dir, "lines.txt"), []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := k.attached(t, "less", "")
	o := ptyOpen(t, c, map[string]any{"cmd": "less", "args": []string{"lines.txt"}, "cols": 40, "rows": 10, "env": map[string]string{"LESS": "", "LESSHISTFILE": "-"}})
	top := func(want string) func(ptyScreen) bool {
		return func(s ptyScreen) bool { return s.Screen[0] == want }
	}
	ptyWait(t, c, o.PtyID, "first page", func(s ptyScreen) bool { return s.Screen[0] == "line-1" && s.Screen[8] == "line-9" })
	ptySend(t, c, o.PtyID, map[string]string{"key": "PageDown"})
	ptyWait(t, c, o.PtyID, "next page", top("line-10"))
	ptySend(t, c, o.PtyID, []any{map[string]string{"key": "Down"}, map[string]string{"key": "Down"}})
	ptyWait(t, c, o.PtyID, "two lines down", top("line-12"))
	ptySend(t, c, o.PtyID, map[string]string{"key": "Up"})
	ptyWait(t, c, o.PtyID, "one line up", top("line-11"))
	ptySend(t, c, o.PtyID, "q")
	s := ptyWait(t, c, o.PtyID, "quit", func(s ptyScreen) bool { return !s.Alive })
	if s.Exit == nil || s.Exit.Status == nil || *s.Exit.Status != 0 {
		t.Fatalf("less exit %+v", s.Exit)
	}
}
