package pty

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// cmdChild is a Child started with os/exec, without containment.
type cmdChild struct{ cmd *exec.Cmd }

func (c cmdChild) Pid() int { return c.cmd.Process.Pid }
func (c cmdChild) Wait() (syscall.WaitStatus, error) {
	err := c.cmd.Wait()
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if _, ok := err.(*exec.ExitError); ok {
		err = nil
	}
	return ws, err
}
func (c cmdChild) Signal(sig syscall.Signal) { _ = syscall.Kill(-c.cmd.Process.Pid, sig) }
func (c cmdChild) Kill()                     { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }

func starter(argv ...string) Starter {
	return func(tty *os.File) (Child, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"TERM=xterm-256color", "PATH=/usr/bin:/bin", "HOME=/tmp", "PS1=$ "}
		Attach(cmd, tty)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return cmdChild{cmd}, nil
	}
}

func open(t *testing.T, o Options, argv ...string) *Session {
	t.Helper()
	o.Start = starter(argv...)
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func send(t *testing.T, s *Session, input string) {
	t.Helper()
	if _, err := s.Send(json.RawMessage(input)); err != nil {
		t.Fatalf("send %s: %v", input, err)
	}
}

// waitScreen reads until cond holds for the screen, failing after a
// generous liveness timeout.
func waitScreen(t *testing.T, s *Session, what string, cond func(Snapshot) bool) Snapshot {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		snap := s.Read(context.Background(), ReadOptions{Wait: 200 * time.Millisecond})
		if cond(snap) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: screen never matched:\n%s", what, strings.Join(snap.Screen, "\n"))
		}
	}
}

func contains(sub string) func(Snapshot) bool {
	return func(s Snapshot) bool { return strings.Contains(strings.Join(s.Screen, "\n"), sub) }
}

func TestShellEchoAndExit(t *testing.T) {
	var mu sync.Mutex
	var kinds []EventKind
	screens := make(chan struct{}, 1)
	s := open(t, Options{Cols: 60, Rows: 10, Notify: func(e Event) {
		mu.Lock()
		kinds = append(kinds, e.Kind)
		mu.Unlock()
		if e.Kind == EventScreen {
			select {
			case screens <- struct{}{}:
			default:
			}
		}
	}}, "/bin/sh")
	waitScreen(t, s, "prompt", contains("$"))
	time.Sleep(2 * PushInterval)
	select {
	case <-screens: // the prompt's
	default:
	}
	send(t, s, `["echo hel", "lo-$((6*7))", {"key": "Enter"}]`)
	select {
	case <-screens:
	case <-time.After(10 * time.Second):
		t.Fatal("no screen notification after a send")
	}
	waitScreen(t, s, "echo", contains("hello-42"))
	send(t, s, `"exit 3\r"`)
	snap := waitScreen(t, s, "exit", func(s Snapshot) bool { return !s.Alive })
	if snap.Exit == nil || snap.Exit.Status == nil || *snap.Exit.Status != 3 || snap.Exit.Signal != nil {
		t.Fatalf("exit %+v, want status 3", snap.Exit)
	}
	if ex := s.Close(); ex.Status == nil || *ex.Status != 3 {
		t.Fatalf("close reports %+v", ex)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) < 2 || kinds[len(kinds)-1] != EventExit || kinds[0] != EventScreen {
		t.Fatalf("events %v: want screen changes then exit", kinds)
	}
	for _, k := range kinds[:len(kinds)-1] {
		if k != EventScreen {
			t.Fatalf("events %v: one exit, last", kinds)
		}
	}
	if _, err := s.Send(json.RawMessage(`"x"`)); err != ErrExited {
		t.Fatalf("send after exit: %v", err)
	}
}

func TestCtrlCReachesForeground(t *testing.T) {
	s := open(t, Options{}, "/bin/sh", "-c", "trap 'echo caught-INT; exit 5' INT; echo ready; while :; do sleep 0.1; done")
	waitScreen(t, s, "ready", contains("ready"))
	send(t, s, `{"key":"Ctrl-C"}`)
	snap := waitScreen(t, s, "interrupted", func(s Snapshot) bool { return !s.Alive })
	if !contains("caught-INT")(snap) || snap.Exit.Status == nil || *snap.Exit.Status != 5 {
		t.Fatalf("exit %+v, screen %q", snap.Exit, snap.Screen)
	}
}

func TestResizeSeenByStty(t *testing.T) {
	s := open(t, Options{Cols: 50, Rows: 12}, "/bin/sh")
	send(t, s, `"stty size\r"`)
	waitScreen(t, s, "initial size", contains("12 50"))
	if err := s.Resize(77, 21); err != nil {
		t.Fatal(err)
	}
	send(t, s, `"stty size\r"`)
	snap := waitScreen(t, s, "new size", contains("21 77"))
	if snap.Cols != 77 || snap.Rows != 21 || len(snap.Screen) != 21 {
		t.Fatalf("snapshot %dx%d with %d rows", snap.Cols, snap.Rows, len(snap.Screen))
	}
	for _, bad := range [][2]int{{0, 10}, {10, 0}, {1001, 10}, {10, 1001}, {-1, 5}} {
		if err := s.Resize(bad[0], bad[1]); err != ErrSize {
			t.Errorf("resize %v: %v, want ErrSize", bad, err)
		}
	}
}

func TestCloseEndsShellWithinGrace(t *testing.T) {
	s := open(t, Options{}, "/bin/sh", "-c", "trap '' TERM HUP; while :; do sleep 1; done")
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	ex := s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("close took %v", d)
	}
	if ex.Signal == nil || *ex.Signal != "SIGKILL" {
		t.Fatalf("exit %+v, want SIGKILL", ex)
	}
	snap := s.Read(context.Background(), ReadOptions{})
	if snap.Alive || snap.Exit == nil {
		t.Fatalf("after close: alive %v exit %v", snap.Alive, snap.Exit)
	}
}

func TestScrollbackStylesAndCursor(t *testing.T) {
	s := open(t, Options{Cols: 40, Rows: 5}, "/bin/sh", "-c",
		`i=1; while [ $i -le 30 ]; do echo line-$i; i=$((i+1)); done; printf '\033[1;31mRED\033[0m\033[?25l'; sleep 100`)
	snap := waitScreen(t, s, "output", func(s Snapshot) bool { return contains("RED")(s) && s.Cursor.Hidden })
	sb := s.Read(context.Background(), ReadOptions{Scrollback: 10, Styles: true})
	if len(sb.Scrollback) != 10 || !strings.HasPrefix(sb.Scrollback[0], "line-") {
		t.Fatalf("scrollback %q", sb.Scrollback)
	}
	if !snap.Cursor.Hidden || snap.Cursor.Col != 3 {
		t.Errorf("cursor %+v, want hidden at col 3", snap.Cursor)
	}
	last := sb.Styles[snap.Cursor.Row]
	if len(last) != 1 || last[0].Col != 0 || last[0].Len != 3 || last[0].Fg != 1 || len(last[0].Attrs) != 1 || last[0].Attrs[0] != "bold" {
		t.Errorf("styles of the RED row: %+v", last)
	}
	if sb.Changed {
		t.Errorf("second read of an unchanged screen reports a change")
	}
}

// TestFloodNeitherBlocksNorGrows: a program writing 32 MiB finishes
// promptly (it is never blocked on its terminal) and what the session
// keeps stays within its bounds.
func TestFloodNeitherBlocksNorGrows(t *testing.T) {
	s := open(t, Options{}, "/bin/sh", "-c", "head -c 33554432 /dev/zero | tr '\\0' 'x'; echo; echo flood-done")
	select {
	case <-s.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the flooding program did not finish: blocked on its terminal?")
	}
	snap := waitScreen(t, s, "end", contains("flood-done"))
	if snap.Exit == nil || snap.Exit.Status == nil || *snap.Exit.Status != 0 {
		t.Fatalf("exit %+v", snap.Exit)
	}
	s.pmu.Lock()
	pend := cap(s.pend)
	s.pmu.Unlock()
	if pend > PendingBytes+readChunk*2 {
		t.Errorf("pending buffer capacity %d", pend)
	}
	t.Logf("skipped %d of %d bytes", snap.Skipped, 32<<20)
}

func TestOpenRefusesBadSize(t *testing.T) {
	for _, d := range [][2]int{{0, 1}, {1001, 5}, {5, -2}} {
		_, err := Open(Options{Cols: d[0], Rows: d[1], Start: starter("/bin/true")})
		if d[0] == 0 && d[1] == 1 {
			// 0 cols means the default: valid.
			if err != nil {
				t.Errorf("%v: %v", d, err)
			}
			continue
		}
		if err != ErrSize {
			t.Errorf("%v: %v, want ErrSize", d, err)
		}
	}
}

// TestCellsStayBounded: a program printing one letter with 100,000
// combining accents, a chain of joined emoji and a hyperlink with a long
// URL leaves no cell holding more than the clamp allows.
func TestCellsStayBounded(t *testing.T) {
	s := open(t, Options{Cols: 20, Rows: 4}, "/bin/sh", "-c",
		`printf 'e'; i=0; while [ $i -lt 2000 ]; do printf '\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201\314\201'; i=$((i+1)); done; printf '\033]8;;http://x/%0100000d\033\\link\033]8;;\033\\ done\n'; sleep 100`)
	waitScreen(t, s, "done", contains("done"))
	s.mu.Lock()
	defer s.mu.Unlock()
	for y := range s.rows {
		for x := range s.cols {
			c := s.emu.CellAt(x, y)
			if c == nil {
				continue
			}
			if len(c.Content) > (MaxClusterRunes+1)*utf8.UTFMax {
				t.Fatalf("cell %d,%d holds %d bytes", x, y, len(c.Content))
			}
			if len(c.Link.URL) > 0 {
				t.Fatalf("cell %d,%d keeps a %d-byte link", x, y, len(c.Link.URL))
			}
		}
	}
}

func TestClampKeepsText(t *testing.T) {
	var c clusterClamp
	for _, in := range []string{"plain ascii\r\n", "héllo wörld", "日本語のテキスト", "👨‍👩‍👧‍👦 family", "e\u0301", "\x1b[31mred\x1b[0m"} {
		c.reset()
		b := []byte(in)
		// Fed a byte at a time, split runes are carried over.
		var out []byte
		for i := range b {
			out = append(out, c.filter(append([]byte(nil), b[i]))...)
		}
		if string(out) != in {
			t.Errorf("filter(%q) = %q", in, out)
		}
	}
	c.reset()
	long := "e" + strings.Repeat("\u0301", 1000) + "x"
	got := string(c.filter([]byte(long)))
	if want := "e" + strings.Repeat("\u0301", MaxClusterRunes) + "x"; got != want {
		t.Errorf("1000 accents kept %d bytes, want %d", len(got), len(want))
	}
}
