package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/diewithparent"
)

// binDir holds shoal-kernel and shoal-mcp, built once for this test binary.
var binDir string

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	if res, ok := os.LookupEnv(cannedEnv); ok {
		return cannedServe(res) // BenchmarkSDKClient's canned server
	}
	flag.Parse()
	if w := flag.Lookup("test.fuzzworker"); w != nil && w.Value.String() == "true" {
		return m.Run() // a fuzz worker runs only the fuzz target: no binaries needed
	}
	dir, err := os.MkdirTemp("", "mcp-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"shoal-kernel", "shoal-mcp", "shoal"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/shoalgo/shoal/cmd/"+name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", name, err)
			return 1
		}
	}
	binDir = dir
	return m.Run()
}

func bin(name string) string { return filepath.Join(binDir, name) }

// kernel is a real shoal-kernel on a temp socket.
type kernel struct {
	sock, dir, state, store, base string
	cmd                           *exec.Cmd
	exited                        chan struct{}
}

// env is the hermetic environment of the processes a test starts.
func (k *kernel) env() []string {
	return []string{"HOME=" + k.base, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + k.base,
		"XDG_RUNTIME_DIR=" + k.base, "XDG_STATE_HOME=" + filepath.Join(k.base, "xdgstate"), "SHOAL_TOKEN_STORE=" + k.store}
}

func newBase(t testing.TB) *kernel {
	t.Helper()
	base, err := os.MkdirTemp("", "mk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	k := &kernel{base: base, sock: filepath.Join(base, "k.sock"), dir: filepath.Join(base, "work"), state: filepath.Join(base, "state")}
	k.store = filepath.Join(k.state, "tokens.json")
	for _, d := range []string{k.dir, k.state} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// startKernel starts shoal-kernel with extra flags and waits for ready.
func startKernel(t testing.TB, flags ...string) *kernel {
	t.Helper()
	k := newBase(t)
	k.start(t, flags...)
	return k
}

func (k *kernel) start(t testing.TB, flags ...string) {
	t.Helper()
	args := append([]string{"--socket", k.sock, "--state-dir", k.state}, flags...)
	cmd := exec.Command(bin("shoal-kernel"), args...)
	cmd.Dir, cmd.Env = k.dir, k.env()
	cmd.SysProcAttr = diewithparent.Attr() // dies with the test binary
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	k.cmd = cmd
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "shoal-kernel: ready ") {
				close(ready)
				sent = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("kernel not ready after 30 s")
	}
	k.exited = make(chan struct{})
	go func() { cmd.Wait(); close(k.exited) }()
	t.Cleanup(func() { k.stop() })
}

// stop ends the kernel (SIGTERM, then SIGKILL after 10 s).
func (k *kernel) stop() {
	k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(10 * time.Second):
		k.cmd.Process.Kill()
		<-k.exited
	}
}

// raw dials the kernel as a plain client attached to session (the
// approver, the publisher of events in tests).
func (k *kernel) raw(t testing.TB, session, token string) *client.Client {
	t.Helper()
	c, err := client.Dial(ctx(t), k.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Attach(ctx(t), client.AttachParams{Session: session, Token: token}); err != nil {
		t.Fatal(err)
	}
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// notes collects what the server sends the client unasked.
type notes struct {
	mu       sync.Mutex
	updated  []string
	progress []*sdk.ProgressNotificationParams
	changed  chan struct{}
}

func (n *notes) poke() {
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

func (n *notes) updates() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.updated...)
}

func (n *notes) progresses() []*sdk.ProgressNotificationParams {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*sdk.ProgressNotificationParams(nil), n.progress...)
}

// session is shoal-mcp started by the SDK's own client over stdio.
type session struct {
	cs     *sdk.ClientSession
	notes  *notes
	stderr *strings.Builder
	mu     *sync.Mutex
}

// connect starts shoal-mcp with args against k and initializes.
func connect(t testing.TB, k *kernel, args ...string) *session {
	t.Helper()
	return connectArgs(t, k, append([]string{"--socket", k.sock, "--no-autostart"}, args...)...)
}

// connectArgs starts shoal-mcp with exactly args, in k's environment.
func connectArgs(t testing.TB, k *kernel, args ...string) *session {
	t.Helper()
	n := &notes{changed: make(chan struct{}, 1)}
	c := newSDKClient(n)
	cmd := exec.Command(bin("shoal-mcp"), args...)
	cmd.Env, cmd.Dir = k.env(), k.dir
	cmd.SysProcAttr = diewithparent.Attr() // dies with the test binary
	s := &session{notes: n, stderr: &strings.Builder{}, mu: &sync.Mutex{}}
	cmd.Stderr = lockedWriter{s.mu, s.stderr}
	cs, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// call calls a tool and decodes its structuredContent into out (when
// not nil); it fails the test on a protocol error.
func (s *session) call(t testing.TB, c context.Context, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.cs.CallTool(c, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// structured decodes a result's structuredContent.
func structured(t testing.TB, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	// A value's render is the result's text, not part of structuredContent.
	if r, ok := out.(*execResult); ok && r.Render == "" && !res.IsError && len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok && r.Ref != "" {
			r.Render = tc.Text
		}
	}
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// toolErr is a tool error's structuredContent.
type toolErr struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func wantToolError(t testing.TB, what string, res *sdk.CallToolResult, code int) toolErr {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s: not a tool error: %s", what, text(res))
	}
	var e toolErr
	structured(t, res, &e)
	if e.Code != code {
		t.Fatalf("%s: code %d (%s), want %d", what, e.Code, e.Message, code)
	}
	return e
}

type sdkCall struct {
	Name      string
	Arguments map[string]any
}

func (c sdkCall) params() *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: c.Name, Arguments: c.Arguments}
}

// newSDKClient is the SDK's client, recording notifications in n.
func newSDKClient(n *notes) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "shoal-e2e", Version: "1"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated = append(n.updated, r.Params.URI)
			n.mu.Unlock()
			n.poke()
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			n.mu.Lock()
			n.progress = append(n.progress, r.Params)
			n.mu.Unlock()
			n.poke()
		},
	})
}

// errText is what shoal-mcp wrote on stderr so far.
func (s *session) errText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// command is a process in k's hermetic environment and directory.
func command(k *kernel, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = k.env(), k.dir
	return cmd
}

func clientExec(src string) client.ExecParams { return client.ExecParams{Src: src} }
