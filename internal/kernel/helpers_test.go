package kernel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
)

// testKernel is a server listening on a temp socket.
type testKernel struct {
	srv   *Server
	sock  string
	dir   string // session working directory
	store string // token store path
}

// shortDir returns a fresh directory with a short path, so socket paths
// stay well under the platform limit.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "sk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func startKernel(t *testing.T) *testKernel {
	t.Helper()
	return startKernelWith(t, nil)
}

// startKernelWith is startKernel with a chance to adjust the config.
func startKernelWith(t *testing.T, adjust func(*Config)) *testKernel {
	t.Helper()
	base := shortDir(t)
	k := &testKernel{
		sock:  filepath.Join(base, "k.sock"),
		dir:   filepath.Join(base, "work"),
		store: filepath.Join(base, "tokens.json"),
	}
	if err := os.Mkdir(k.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(k.sock, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Version: "test", TokenStore: k.store, Dir: k.dir, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}}
	if adjust != nil {
		adjust(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k.srv = srv
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	})
	return k
}

// token creates a bearer token in the kernel's store.
func (k *testKernel) token(t *testing.T, principal, profile string, caps ...string) (id, secret string) {
	t.Helper()
	id, secret, err := auth.Open(k.store).Create(principal, profile, caps, 0)
	if err != nil {
		t.Fatal(err)
	}
	return id, secret
}

// client speaks raw JSON lines to the kernel.
type client struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	id   int
	wait time.Duration // read timeout; 0 means 10 s
}

func (k *testKernel) dial(t *testing.T) *client {
	t.Helper()
	c, err := net.Dial("unix", k.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, conn: c, r: bufio.NewReaderSize(c, 1<<20)}
}

// rpcResponse is a decoded response frame.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	Method string `json:"method"`
}

func (c *client) sendRaw(line string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.conn.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// readLine reads one frame, failing the test after a timeout.
func (c *client) readLine() ([]byte, error) {
	wait := c.wait
	if wait == 0 {
		wait = 10 * time.Second
	}
	c.conn.SetReadDeadline(time.Now().Add(wait))
	return c.r.ReadBytes('\n')
}

func (c *client) recv() *rpcResponse {
	c.t.Helper()
	line, err := c.readLine()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var r rpcResponse
	if err := json.Unmarshal(line, &r); err != nil {
		c.t.Fatalf("bad frame %q: %v", line, err)
	}
	return &r
}

// call sends one request and returns its response.
func (c *client) call(method string, params any) *rpcResponse {
	c.t.Helper()
	c.id++
	req := map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(b))
	r := c.recv()
	if string(r.ID) != string(mustJSON(c.t, c.id)) {
		c.t.Fatalf("%s: response id %s, want %d", method, r.ID, c.id)
	}
	return r
}

// ok calls and decodes a successful result into dst.
func (c *client) ok(method string, params, dst any) {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error != nil {
		c.t.Fatalf("%s %v: error %d %s (%s)", method, params, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if dst != nil {
		if err := json.Unmarshal(r.Result, dst); err != nil {
			c.t.Fatalf("%s: decoding %s: %v", method, r.Result, err)
		}
	}
}

// fail calls and checks the error code.
func (c *client) fail(method string, params any, code int) *rpcResponse {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error == nil {
		c.t.Fatalf("%s %v: got result %s, want error %d", method, params, r.Result, code)
	}
	if r.Error.Code != code {
		c.t.Fatalf("%s %v: error %d %q, want %d", method, params, r.Error.Code, r.Error.Message, code)
	}
	return r
}

// attach attaches with optional token and session name.
func (c *client) attach(session, token string) map[string]any {
	c.t.Helper()
	p := map[string]any{}
	if session != "" {
		p["session"] = session
	}
	if token != "" {
		p["token"] = token
	}
	var res map[string]any
	c.ok("session.attach", p, &res)
	return res
}

// expectClosed reads until EOF, failing if the connection stays open.
func (c *client) expectClosed() {
	c.t.Helper()
	for {
		_, err := c.readLine()
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.t.Fatal("connection still open")
		}
		return
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
