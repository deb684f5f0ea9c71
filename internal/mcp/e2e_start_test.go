package mcp_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/auth"
)

// TestE2EAutostart: with no kernel at the socket, shoal-mcp starts one
// there (found beside itself), says so on stderr, serves, and stops it
// when the client goes away.
func TestE2EAutostart(t *testing.T) {
	k := newBase(t)
	s := connectArgs(t, k, "--socket", k.sock)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "20 + 22"})
	var r execResult
	structured(t, res, &r)
	if r.Render != "42" {
		t.Fatalf("exec on the autostarted kernel = %s", text(res))
	}
	if !strings.Contains(s.errText(), "no kernel answered at "+k.sock+": started") {
		t.Errorf("stderr does not say a kernel was started:\n%s", s.errText())
	}
	if _, err := os.Stat(k.sock); err != nil {
		t.Fatalf("no socket at %s: %v", k.sock, err)
	}
	s.cs.Close()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(k.sock); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the autostarted kernel's socket is still there after shoal-mcp exited:\n%s", s.errText())
		}
	}
}

// TestE2ENoAutostartFails: --no-autostart with no kernel exits 1 with a
// message naming the socket.
func TestE2ENoAutostartFails(t *testing.T) {
	k := newBase(t)
	c := sdk.NewClient(&sdk.Implementation{Name: "x", Version: "1"}, nil)
	cmd := command(k, bin("shoal-mcp"), "--socket", k.sock, "--no-autostart")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if _, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil); err == nil {
		t.Fatal("connected to a facade without a kernel")
	}
	cmd.Wait()
	if !strings.Contains(stderr.String(), "no kernel at "+k.sock) {
		t.Errorf("stderr = %q", stderr.String())
	}
}

// TestE2EShoalMCP: `shoal mcp` is the same facade.
func TestE2EShoalMCP(t *testing.T) {
	k := startKernel(t)
	n := &notes{changed: make(chan struct{}, 1)}
	cmd := command(k, bin("shoal"), "mcp", "--socket", k.sock, "--no-autostart", "--session", "viashoal")
	cs, err := newSDKClient(n).Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "let x = 5; x * 2"}})
	if err != nil {
		t.Fatal(err)
	}
	if text(res) != "10" {
		t.Fatalf("shoal mcp exec = %s", text(res))
	}
	// It attached to the named session: the binding is there for a raw client.
	raw := k.raw(t, "viashoal", "")
	r, err := raw.Exec(ctx(t), clientExec("x"))
	if err != nil || r.Render != "5" {
		t.Fatalf("x in session viashoal = %+v, %v", r, err)
	}
}

// TestE2EKernelRestart: when the kernel restarts, shoal-mcp reconnects,
// re-attaches and restores its subscriptions.
func TestE2EKernelRestart(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	uri := "shoal://events/user.deploy"
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	k.stop()
	k.start(t)
	execOnceBack(t, s, "3 * 3", "9")
	pub := k.raw(t, "default", "")
	for deadline := time.Now().Add(15 * time.Second); !contains(s.notes.updates(), uri); {
		if _, err := pub.EventsPublish(ctx(t), "user.deploy", map[string]any{"v": 1}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.notes.changed:
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription was not restored after the restart")
		}
	}
}

// TestE2EAutostartedKernelEndsWithAKilledFacade: a shoal-mcp killed with
// SIGKILL cannot stop its kernel; the kernel's parent-death signal does.
func TestE2EAutostartedKernelEndsWithAKilledFacade(t *testing.T) {
	k := newBase(t)
	cmd := command(k, bin("shoal-mcp"), "--socket", k.sock)
	cs, err := newSDKClient(&notes{changed: make(chan struct{}, 1)}).Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(k.sock); err != nil {
		t.Fatalf("no kernel socket: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(k.sock); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the autostarted kernel outlived its killed shoal-mcp")
		}
	}
}

// TestE2ETokenFromEnvironment: SHOAL_TOKEN attaches as the token's
// principal, whom a policy without an entry lets only evaluate: a
// command is refused as a tool error with the kernel's code.
func TestE2ETokenFromEnvironment(t *testing.T) {
	k := startKernel(t)
	_, secret, err := auth.Open(k.store).Create("agent:env", "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := &notes{changed: make(chan struct{}, 1)}
	cmd := command(k, bin("shoal-mcp"), "--socket", k.sock, "--no-autostart")
	cmd.Env = append(cmd.Env, "SHOAL_TOKEN="+secret)
	var stderr strings.Builder
	cmd.Stderr = &lockedBuf{b: &stderr}
	cs, err := newSDKClient(n).Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "6 * 7"}})
	if err != nil || text(res) != "42" {
		t.Fatalf("pure evaluation as agent:env = %v, %v", res, err)
	}
	res, err = cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "ls ./"}})
	if err != nil {
		t.Fatal(err)
	}
	wantToolError(t, "ls as agent:env", res, -32010)
	cs.Close()
	cmd.Wait()
	if !strings.Contains(stderr.String(), "as agent:env") {
		t.Errorf("stderr = %q, want the token's principal", stderr.String())
	}
}

type lockedBuf struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestE2EEnvironmentSelectsKernel: with no flags, SHOAL_SOCKET and
// SHOAL_SESSION choose the kernel and the session (no second kernel is
// started), and a non-empty SHOAL_NO_AUTOSTART fails instead of starting
// one where no kernel answers.
func TestE2EEnvironmentSelectsKernel(t *testing.T) {
	k := startKernel(t)
	n := &notes{changed: make(chan struct{}, 1)}
	cmd := command(k, bin("shoal-mcp"))
	cmd.Env = append(cmd.Env, "SHOAL_SOCKET="+k.sock, "SHOAL_SESSION=fromenv", "SHOAL_NO_AUTOSTART=1")
	var stderr strings.Builder
	cmd.Stderr = &lockedBuf{b: &stderr}
	cs, err := newSDKClient(n).Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "let y = 9; y"}})
	if err != nil || text(res) != "9" {
		t.Fatalf("exec through SHOAL_SOCKET = %v, %v", res, err)
	}
	cs.Close()
	cmd.Wait()
	if s := stderr.String(); !strings.Contains(s, `session "fromenv"`) || strings.Contains(s, "started") {
		t.Errorf("stderr = %q; want the fromenv session on the running kernel, none started", s)
	}
	raw := k.raw(t, "fromenv", "")
	if r, err := raw.Exec(ctx(t), clientExec("y")); err != nil || r.Render != "9" {
		t.Fatalf("y in session fromenv = %+v, %v", r, err)
	}

	// SHOAL_NO_AUTOSTART with nothing at the socket.
	b := newBase(t)
	c := sdk.NewClient(&sdk.Implementation{Name: "x", Version: "1"}, nil)
	cmd = command(b, bin("shoal-mcp"))
	cmd.Env = append(cmd.Env, "SHOAL_SOCKET="+b.sock, "SHOAL_NO_AUTOSTART=yes")
	var stderr2 strings.Builder
	cmd.Stderr = &stderr2
	if _, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil); err == nil {
		t.Fatal("connected to a facade without a kernel")
	}
	cmd.Wait()
	if !strings.Contains(stderr2.String(), "no kernel at "+b.sock) {
		t.Errorf("stderr = %q", stderr2.String())
	}
}

// TestE2EKernelAwayCallsFail: a tool call made while the kernel is away
// waits at most KernelCallWait and is then the tool error
// kernel_unreachable, not a call that hangs until the client gives up; the
// facade keeps redialling, and once the kernel is back calls run again.
func TestE2EKernelAwayCallsFail(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	k.stop()
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 1"})
	var body struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	structured(t, res, &body)
	if !res.IsError || body.Error != "kernel_unreachable" || !strings.Contains(body.Message, "still reconnecting") {
		t.Fatalf("exec while the kernel is away: %s\n%s", text(res), s.errText())
	}
	k.start(t)
	execOnceBack(t, s, "2 + 2", "4")
}

// execOnceBack runs src through the facade until the restarted kernel
// answers it (the facade redials with backoff; calls fail meanwhile) and
// checks the answer's text is want.
func execOnceBack(t *testing.T, s *session, src, want string) {
	t.Helper()
	var res *sdk.CallToolResult
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": src})
		if !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exec once the kernel is back: %s\n%s", text(res), s.errText())
		}
	}
	if text(res) != want {
		t.Fatalf("exec once the kernel is back = %s, want %s", text(res), want)
	}
}
