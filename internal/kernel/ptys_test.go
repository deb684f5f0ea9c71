package kernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// ptyScreenOf waits (server-side, in steps) until the PTY's screen holds
// sub, failing after a liveness timeout; it returns the screen text.
func ptyScreenOf(t *testing.T, c *client, id, sub string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var s struct {
			Screen []string `json:"screen"`
			Alive  bool     `json:"alive"`
		}
		c.ok("pty.read", map[string]any{"pty_id": id, "wait_ms": 500}, &s)
		text := strings.Join(s.Screen, "\n")
		if strings.Contains(text, sub) {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %q:\n%s", id, sub, text)
		}
	}
}

func (k *testKernel) ptyCount() (total int, cells int64) {
	k.srv.ptys.mu.Lock()
	defer k.srv.ptys.mu.Unlock()
	return k.srv.ptys.total, k.srv.ptys.cells
}

// TestPTYDeniedSpawnStartsNothing: a program outside proc_spawn is
// LEASH_DENIED with the verdict, and nothing runs (the file the program
// would have made is not there, no PTY is counted); a principal without
// a policy is denied too; an allowed program runs, under the OS sandbox.
func TestPTYDeniedSpawnStartsNothing(t *testing.T) {
	k := startPolicyKernel(t, func(dir, base string) string {
		return spawnPolicy("agent:pty", `env_write = ["PS1"]`)(dir, base) + spawnPolicy("agent:careful", `auto_apply = "never"`)(dir, base)
	})
	_, secret := k.token(t, "agent:pty", "worker")
	c := k.dial(t)
	att := c.attach("", secret)
	made := filepath.Join(k.dir, "made.txt")
	r := c.fail("pty.open", map[string]any{"cmd": "touch", "args": []string{made}}, proto.CodeLeashDenied)
	v := verdictOf(t, r)
	if v.Verdict != "deny" || len(v.Effects) != 2 || len(v.Reasons) == 0 {
		t.Errorf("verdict %+v", v)
	}
	// An absolute path outside the grants too.
	c.fail("pty.open", map[string]any{"cmd": "/usr/bin/touch", "args": []string{made}}, proto.CodeLeashDenied)
	time.Sleep(100 * time.Millisecond)
	if exists(made) {
		t.Fatal("the denied program ran")
	}
	if n, _ := k.ptyCount(); n != 0 {
		t.Fatalf("%d PTYs counted after refusals", n)
	}
	// A principal whose every plan needs approval gets -32011: pty.open
	// has no plan to approve.
	_, careful := k.token(t, "agent:careful", "worker")
	c3 := k.dial(t)
	c3.attach("", careful)
	if v := verdictOf(t, c3.fail("pty.open", map[string]any{"cmd": "sh"}, proto.CodeApprovalRequired)); v.Verdict != "approval_required" {
		t.Errorf("verdict %+v", v)
	}
	_, stranger := k.token(t, "agent:nobody", "worker")
	c2 := k.dial(t)
	c2.attach("", stranger)
	c2.fail("pty.open", map[string]any{"cmd": "sh"}, proto.CodeLeashDenied)

	// sh is granted: it runs, confined like every spawn of the session.
	var o struct {
		PtyID string `json:"pty_id"`
	}
	c.ok("pty.open", map[string]any{"cmd": "sh", "env": map[string]string{"PS1": "$ "}}, &o)
	defer c.call("pty.close", map[string]any{"pty_id": o.PtyID})
	if err := writeFile(filepath.Join(k.dir, "mine.txt"), "mine-content"); err != nil {
		t.Fatal(err)
	}
	c.ok("pty.send", map[string]any{"pty_id": o.PtyID, "input": "cat mine.txt; echo; echo end-$?\r"}, nil)
	ptyScreenOf(t, c, o.PtyID, "end-0")
	if att["caps_enforced"] != true {
		t.Log("no OS sandbox on this machine: the gate alone is tested")
		return
	}
	secretFile := filepath.Join(k.base(), "secret.txt")
	if err := writeFile(secretFile, "top secret"); err != nil {
		t.Fatal(err)
	}
	c.ok("pty.send", map[string]any{"pty_id": o.PtyID, "input": "cat " + secretFile + "; echo confined-$?\r"}, nil)
	text := ptyScreenOf(t, c, o.PtyID, "\nconfined-")
	if strings.Contains(text, "top secret") || !strings.Contains(text, "ermission denied") {
		t.Fatalf("the PTY's program is not sandboxed:\n%s", text)
	}
}

// TestPTYBounds: past the session, principal and kernel bounds pty.open
// is LEASH_DENIED (quota_exceeded, naming the budget) and starts nothing;
// closing one makes room again; a resize past the cell bound is refused
// and changes nothing.
func TestPTYBounds(t *testing.T) {
	lim := DefaultLimits()
	lim.SessionPTYs, lim.PrincipalPTYs, lim.KernelPTYs, lim.PTYCells = 2, 3, 4, 10_000
	k := startKernelWith(t, func(cfg *Config) {
		cfg.Limits = &lim
		text := func(dir, base string) string {
			return spawnPolicy("agent:a", "")(dir, base) + spawnPolicy("agent:b", "")(dir, base)
		}
		cfg.Policy = testPolicy(t, text(cfg.Dir, filepath.Dir(cfg.Dir)))
	})
	_, s1 := k.token(t, "agent:a", "worker")
	_, s2 := k.token(t, "agent:b", "worker")
	open := func(c *client) string {
		var o struct {
			PtyID string `json:"pty_id"`
		}
		c.ok("pty.open", map[string]any{"cmd": "sh", "cols": 10, "rows": 10}, &o)
		return o.PtyID
	}
	budget := func(r *rpcResponse) string {
		var d struct {
			Code   string `json:"code"`
			Budget string `json:"budget"`
		}
		json.Unmarshal(r.Error.Data, &d)
		if d.Code != "quota_exceeded" {
			t.Errorf("refusal data %s", r.Error.Data)
		}
		return d.Budget
	}
	a1 := k.dial(t)
	a1.attach("one", s1)
	first := open(a1)
	open(a1)
	if b := budget(a1.fail("pty.open", map[string]any{"cmd": "sh"}, proto.CodeLeashDenied)); b != "session_ptys" {
		t.Errorf("third in a session: budget %q", b)
	}
	a2 := k.dial(t)
	a2.attach("two", s1)
	open(a2)
	if b := budget(a2.fail("pty.open", map[string]any{"cmd": "sh"}, proto.CodeLeashDenied)); b != "principal_ptys" {
		t.Errorf("fourth of a principal: budget %q", b)
	}
	b1 := k.dial(t)
	b1.attach("one", s2)
	big := open(b1)
	if b := budget(b1.fail("pty.open", map[string]any{"cmd": "sh"}, proto.CodeLeashDenied)); b != "kernel_ptys" {
		t.Errorf("fifth in the kernel: budget %q", b)
	}
	if n, cells := k.ptyCount(); n != 4 || cells != 400 {
		t.Fatalf("counted %d PTYs, %d cells", n, cells)
	}
	if b := budget(b1.fail("pty.resize", map[string]any{"pty_id": big, "cols": 1000, "rows": 10}, proto.CodeLeashDenied)); b != "pty_cells" {
		t.Errorf("resize past the cells: budget %q", b)
	}
	var closed map[string]any
	a1.ok("pty.close", map[string]any{"pty_id": first}, &closed)
	open(b1)
	b1.ok("pty.resize", map[string]any{"pty_id": big, "cols": 50, "rows": 100}, nil)
	if n, cells := k.ptyCount(); n != 4 || cells != 300+5000 {
		t.Fatalf("after close and resize: %d PTYs, %d cells", n, cells)
	}
}

// TestPTYEndsWithKernel: shutting the kernel down ends a PTY's program
// and what it left running in the background.
func TestPTYEndsWithKernel(t *testing.T) {
	base := shortDir(t)
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(base, "k.sock")
	l, err := Listen(sock, true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Version: "test", Dir: dir, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	k := &testKernel{sock: sock, dir: dir, srv: srv}
	c := k.dial(t)
	c.attach("", "")
	var o struct {
		PtyID string `json:"pty_id"`
		Pid   int    `json:"pid"`
	}
	c.ok("pty.open", map[string]any{"cmd": "sh", "env": map[string]string{"PS1": "$ "}}, &o)
	c.ok("pty.send", map[string]any{"pty_id": o.PtyID, "input": "(trap '' HUP TERM; exec sleep 1000) & printf 'bg:%s:\\n' $!\r"}, nil)
	re := regexp.MustCompile(`bg:([0-9]+):`)
	var m []string
	for try := 0; m == nil; try++ {
		if try == 40 {
			t.Fatal("the background pid never showed")
		}
		m = re.FindStringSubmatch(ptyScreenOf(t, c, o.PtyID, "bg:"))
	}
	bg, err := strconv.Atoi(m[1])
	if err != nil || !running(bg) {
		t.Fatalf("background pid %q", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	for _, pid := range []int{o.Pid, bg} {
		deadline := time.Now().Add(5 * time.Second)
		for running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d outlived the kernel's shutdown", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestPTYEndsWithIdleSession: a session whose PTY's program runs is not
// idle, however long it is left unattached (idlework.go); once the
// program has exited and the last connection is gone, the session closes
// as idle and its PTY is closed and no longer counted.
func TestPTYEndsWithIdleSession(t *testing.T) {
	lim := DefaultLimits()
	lim.SessionIdle = 100 * time.Millisecond
	k := startKernelWith(t, func(cfg *Config) { cfg.Limits = &lim })
	c := k.dial(t)
	c.attach("idle", "")
	var o struct {
		PtyID string `json:"pty_id"`
		Pid   int    `json:"pid"`
	}
	c.ok("pty.open", map[string]any{"cmd": "sh"}, &o)
	c.conn.Close()
	// Ten idle periods unattached: the reaper (every 25 ms) would have
	// closed an idle session and ended the program.
	time.Sleep(10 * lim.SessionIdle)
	if !running(o.Pid) {
		t.Fatal("the PTY's program was ended with its unattached session")
	}
	c = k.dial(t)
	if a := c.attach("idle", ""); a["created"] == true {
		t.Fatal("a session with a live PTY was closed as idle")
	}
	c.ok("pty.send", map[string]any{"pty_id": o.PtyID, "input": "exit\r"}, nil)
	c.conn.Close()
	deadline := time.Now().Add(20 * time.Second)
	for running(o.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d did not exit", o.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for n, _ := k.ptyCount(); n != 0; n, _ = k.ptyCount() {
		if time.Now().After(deadline) {
			t.Fatalf("%d PTYs still counted", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPTYEnv(t *testing.T) {
	got := ptyEnv([]string{"TERM=dumb", "HOME=/h", "A=1"}, map[string]string{"B": "2", "A": "3"})
	want := []string{"HOME=/h", "A=3", "B=2", "TERM=xterm-256color"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ptyEnv = %q, want %q", got, want)
	}
	got = ptyEnv([]string{"TERM=dumb"}, map[string]string{"TERM": "vt100"})
	if strings.Join(got, " ") != "TERM=vt100" {
		t.Errorf("ptyEnv with TERM asked = %q", got)
	}
}
