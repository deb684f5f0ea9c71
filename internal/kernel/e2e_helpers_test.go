package kernel_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/kernel"
)

// e2eKernel is a real kernel serving on a temp socket, driven through the
// client package as any client would.
type e2eKernel struct {
	sock, dir, store string
	srv              *kernel.Server
	done             chan error
	stopped          bool
}

// e2eDirs returns a fresh socket path, working directory and token store
// under one short temp directory.
func e2eDirs(t *testing.T) (sock, dir, store string) {
	t.Helper()
	base, err := os.MkdirTemp("", "ke")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir = filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(base, "k.sock"), dir, filepath.Join(base, "tokens.json")
}

func newE2E(t *testing.T) *e2eKernel {
	t.Helper()
	sock, dir, store := e2eDirs(t)
	return serveE2E(t, sock, dir, store)
}

// serveE2E starts a kernel on sock; it is shut down at cleanup unless
// stopped earlier.
func serveE2E(t *testing.T, sock, dir, store string) *e2eKernel {
	t.Helper()
	return serveE2EWith(t, sock, dir, store, nil)
}

// newE2EWith is newE2E with a chance to adjust the kernel's config.
func newE2EWith(t *testing.T, adjust func(*kernel.Config)) *e2eKernel {
	t.Helper()
	sock, dir, store := e2eDirs(t)
	return serveE2EWith(t, sock, dir, store, adjust)
}

// serveE2EWith is serveE2E with a chance to adjust the kernel's config.
func serveE2EWith(t *testing.T, sock, dir, store string, adjust func(*kernel.Config)) *e2eKernel {
	t.Helper()
	l, err := kernel.Listen(sock, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}}
	if adjust != nil {
		adjust(&cfg)
	}
	srv, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := &e2eKernel{sock: sock, dir: dir, store: store, srv: srv, done: make(chan error, 1)}
	go func() { k.done <- srv.Serve(l) }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

// stop shuts the kernel down and waits for Serve to return.
func (k *e2eKernel) stop(t *testing.T) {
	t.Helper()
	if k.stopped {
		return
	}
	k.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := k.srv.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := <-k.done; !errors.Is(err, kernel.ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
}

// token creates a bearer token for principal.
func (k *e2eKernel) token(t *testing.T, principal string) string {
	t.Helper()
	_, secret, err := auth.Open(k.store).Create(principal, "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial connects a client; it is closed at cleanup.
func (k *e2eKernel) dial(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Dial(testCtx(t), k.sock, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// attached dials and attaches to session, with a token when non-empty.
func (k *e2eKernel) attached(t *testing.T, session, token string, opts ...client.Option) *client.Client {
	t.Helper()
	c := k.dial(t, opts...)
	if _, err := c.Attach(testCtx(t), client.AttachParams{Session: session, Token: token}); err != nil {
		t.Fatalf("attach %s: %v", session, err)
	}
	return c
}

// wantCode checks that err is an RPC error with code.
func wantCode(t *testing.T, what string, err error, code int) {
	t.Helper()
	got, ok := client.ErrorCode(err)
	if !ok || got != code {
		t.Errorf("%s: error %v (code %d), want code %d", what, err, got, code)
	}
}

// gatedDialer dials the kernel's socket and keeps the connection, gated,
// in *gate, for a client whose reading a test holds back.
func gatedDialer(gate **gatedConn) func(context.Context, string) (net.Conn, error) {
	return func(ctx context.Context, path string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		*gate = newGatedConn(nc)
		return *gate, nil
	}
}

// gatedConn is a connection whose reads can be paused, to play a client
// that stops reading its socket.
type gatedConn struct {
	net.Conn
	mu   sync.Mutex
	open chan struct{} // closed while reads may proceed
}

func newGatedConn(nc net.Conn) *gatedConn {
	g := &gatedConn{Conn: nc, open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gatedConn) Read(p []byte) (int, error) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
	return g.Conn.Read(p)
}

func (g *gatedConn) pause() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedConn) resume() {
	g.mu.Lock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
	g.mu.Unlock()
}

// next receives one event or fails after a timeout.
func next(t *testing.T, s *client.Subscription, within time.Duration) client.Event {
	t.Helper()
	select {
	case ev, ok := <-s.Events():
		if !ok {
			t.Fatalf("subscription %s ended: %v", s.Channel(), s.Err())
		}
		return ev
	case <-time.After(within):
		t.Fatalf("no event on %s within %v", s.Channel(), within)
	}
	return client.Event{}
}
