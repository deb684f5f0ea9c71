package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/proto"
)

// MCP clients often start their servers with a minimal environment: no
// XDG_RUNTIME_DIR, no TMPDIR, sometimes no HOME. These tests start
// shoal-mcp through the SDK's client with just PATH and the variables
// under test.

// minimalEnv is a client's minimal environment plus extra.
func minimalEnv(extra ...string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
}

// uniqueSession is a session name no other test or user shares, for the
// default socket directories, which are not the test's own.
func uniqueSession(t *testing.T) string {
	return fmt.Sprintf("e2e-%s-%d-%d", strings.ToLower(t.Name()[:8]), os.Getpid(), time.Now().UnixNano())
}

// TestE2EMinimalEnvironmentSHOAL_SOCKET: SHOAL_SOCKET alone (no HOME, no
// XDG_RUNTIME_DIR) finds the user's running kernel; no kernel is started.
func TestE2EMinimalEnvironmentSHOAL_SOCKET(t *testing.T) {
	k := startKernel(t)
	s := connectClient(t, k, newSDKClient(&notes{changed: make(chan struct{}, 1)}), minimalEnv("SHOAL_SOCKET="+k.sock))
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "let z = 5; z"})
	if res.IsError || text(res) != "5" {
		t.Fatalf("exec = %s", text(res))
	}
	if e := s.errText(); !strings.Contains(e, "on "+k.sock) || strings.Contains(e, "started") {
		t.Errorf("stderr = %q; want the user's kernel at %s, none started", e, k.sock)
	}
	if r, err := k.raw(t, "default", "").Exec(ctx(t), clientExec("z")); err != nil || r.Render != "5" {
		t.Fatalf("z on the user's kernel = %+v, %v", r, err)
	}
}

// TestE2EMinimalEnvironmentNoAutostart: SHOAL_NO_AUTOSTART=1 with nothing
// at the default socket fails, naming where it looked (the first of the
// discovery order every client shares), and starts nothing.
func TestE2EMinimalEnvironmentNoAutostart(t *testing.T) {
	k := newBase(t)
	session := uniqueSession(t)
	want := filepath.Join(proto.SocketDirs(func(string) string { return "" }, "/run/user")[0], session+".sock")
	cmd := exec.Command(bin("shoal-mcp"))
	cmd.Env, cmd.Dir = minimalEnv("SHOAL_NO_AUTOSTART=1", "SHOAL_SESSION="+session), k.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "x", Version: "1"}, nil)
	if _, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil); err == nil {
		t.Fatal("connected to a facade without a kernel")
	}
	cmd.Wait()
	if e := stderr.String(); !strings.Contains(e, "no kernel at "+want) || strings.Contains(e, "started") {
		t.Errorf("stderr = %q; want it to name %s and start nothing", e, want)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", want, err)
	}
}

// TestE2EMinimalEnvironmentDiscovery: a kernel the user started without
// --socket, and shoal-mcp started without SHOAL_SOCKET, meet at the same
// default socket: both follow proto.SocketDirs.
func TestE2EMinimalEnvironmentDiscovery(t *testing.T) {
	k := newBase(t)
	session := uniqueSession(t)
	kc := exec.Command(bin("shoal-kernel"), "--session", session, "--state-dir", k.state)
	kc.Env, kc.Dir = minimalEnv("HOME="+k.base), k.dir
	kc.SysProcAttr = diewithparent.Attr()
	out, err := kc.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var got strings.Builder
		for {
			n, err := out.Read(buf)
			got.Write(buf[:n])
			// Past the Go runtime's scheduler lines (the kernel runs with
			// schedtrace set; package sysmon).
			text := got.String()
			for strings.HasPrefix(text, "SCHED ") && strings.Contains(text, "\n") {
				text = text[strings.Index(text, "\n")+1:]
			}
			if line, ok := strings.CutPrefix(text, "shoal-kernel: ready "); ok && strings.Contains(line, "\n") {
				ready <- strings.TrimSpace(strings.SplitN(line, "\n", 2)[0])
				return
			}
			if err != nil {
				close(ready)
				return
			}
		}
	}()
	go func() { kc.Wait(); close(exited) }()
	t.Cleanup(func() {
		kc.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			kc.Process.Kill()
		}
	})
	var sock string
	select {
	case sock = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the user's kernel was not ready")
	}
	if sock == "" || filepath.Base(sock) != session+".sock" {
		t.Fatalf("the kernel listens at %q", sock)
	}
	s := connectClient(t, k, newSDKClient(&notes{changed: make(chan struct{}, 1)}), minimalEnv("SHOAL_SESSION="+session, "SHOAL_NO_AUTOSTART=1"))
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "3 * 3"}); res.IsError || text(res) != "9" {
		t.Fatalf("exec = %s", text(res))
	}
	if e := s.errText(); !strings.Contains(e, "on "+sock) {
		t.Errorf("stderr = %q; want the kernel at %s", e, sock)
	}
}

// TestE2EMinimalEnvironmentAutostart: where starting is allowed and
// nothing answers, shoal-mcp starts a private kernel at the socket and
// says where on stderr.
func TestE2EMinimalEnvironmentAutostart(t *testing.T) {
	k := newBase(t)
	s := connectClient(t, k, newSDKClient(&notes{changed: make(chan struct{}, 1)}),
		minimalEnv("SHOAL_SOCKET="+k.sock, "XDG_STATE_HOME="+k.state))
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "2 + 5"}); res.IsError || text(res) != "7" {
		t.Fatalf("exec = %s", text(res))
	}
	if e := s.errText(); !strings.Contains(e, "no kernel answered at "+k.sock+": started") {
		t.Errorf("stderr = %q; want the started kernel and where", e)
	}
	if fi, err := os.Stat(k.sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("no socket at %s: %v", k.sock, err)
	}
}
