package mcp_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/diewithparent"
)

// httpFacade is shoal-mcp --http on a loopback port against a test kernel.
type httpFacade struct {
	url    string
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	stderr strings.Builder
}

// startHTTP starts shoal-mcp --http 127.0.0.1:0 (or addr) against k and
// waits for its listening line.
func startHTTP(t testing.TB, k *kernel, args ...string) *httpFacade {
	t.Helper()
	return startHTTPWith(t, k, bin("shoal-mcp"), append([]string{"--http", "127.0.0.1:0", "--socket", k.sock, "--no-autostart"}, args...)...)
}

// startHTTPWith starts program with args (which serve HTTP) in k's
// environment and waits for the listening line.
func startHTTPWith(t testing.TB, k *kernel, program string, args ...string) *httpFacade {
	t.Helper()
	h := &httpFacade{exited: make(chan struct{})}
	h.cmd = command(k, program, args...)
	h.cmd.SysProcAttr = diewithparent.Attr() // dies with the test binary
	pr, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			h.mu.Lock()
			h.stderr.WriteString(line + "\n")
			h.mu.Unlock()
			if u, ok := strings.CutPrefix(line, "shoal-mcp: listening "); ok {
				listening <- u
			}
		}
		h.cmd.Wait()
		close(h.exited)
	}()
	select {
	case h.url = <-listening:
	case <-h.exited:
		t.Fatalf("shoal-mcp --http exited before listening:\n%s", h.errText())
	case <-time.After(60 * time.Second):
		t.Fatalf("shoal-mcp --http not listening after 60 s:\n%s", h.errText())
	}
	t.Cleanup(func() {
		h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.exited:
		case <-time.After(15 * time.Second):
			h.cmd.Process.Kill()
			<-h.exited
		}
	})
	return h
}

func (h *httpFacade) errText() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// alive fails the test if shoal-mcp has exited.
func (h *httpFacade) alive(t testing.TB) {
	t.Helper()
	select {
	case <-h.exited:
		t.Fatalf("shoal-mcp --http exited:\n%s", h.errText())
	default:
	}
}

// newToken creates a bearer token for principal in k's store.
func newToken(t testing.TB, k *kernel, principal string) string {
	t.Helper()
	_, secret, err := auth.Open(k.store).Create(principal, "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// bearer adds Authorization: Bearer to every request.
type bearer struct {
	secret string
	rt     http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.secret)
	return b.rt.RoundTrip(req)
}

// bearerClient is an HTTP client that sends secret (none when empty).
func bearerClient(secret string) *http.Client {
	rt := http.DefaultTransport.(*http.Transport).Clone()
	if secret == "" {
		return &http.Client{Transport: rt}
	}
	return &http.Client{Transport: bearer{secret: secret, rt: rt}}
}

// unixClient is an HTTP client over the Unix socket sock, sending secret
// when it is not empty.
func unixClient(sock, secret string) *http.Client {
	rt := http.DefaultTransport.(*http.Transport).Clone()
	rt.DialContext = func(c context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(c, "unix", sock)
	}
	if secret == "" {
		return &http.Client{Transport: rt}
	}
	return &http.Client{Transport: bearer{secret: secret, rt: rt}}
}

// connectHTTP connects the SDK's client to h with secret, offering
// revision version (the SDK's latest when empty).
func connectHTTP(t testing.TB, h *httpFacade, secret, version string) (*session, error) {
	t.Helper()
	return connectHTTPClient(t, h.url, bearerClient(secret), version)
}

// connectHTTPClient connects the SDK's client to url through hc.
func connectHTTPClient(t testing.TB, url string, hc *http.Client, version string) (*session, error) {
	t.Helper()
	n := &notes{changed: make(chan struct{}, 1)}
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}
	cs, err := newSDKClient(n).Connect(ctx(t), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return &session{cs: cs, notes: n, stderr: &strings.Builder{}, mu: &sync.Mutex{}}, nil
}

// mustConnectHTTP is connectHTTP failing the test on an error.
func mustConnectHTTP(t testing.TB, h *httpFacade, secret, version string) *session {
	t.Helper()
	s, err := connectHTTP(t, h, secret, version)
	if err != nil {
		t.Fatalf("connect over HTTP (%s): %v\n%s", version, err, h.errText())
	}
	return s
}

// execOK runs src with shoal_exec and returns its render.
func execOK(t testing.TB, c context.Context, s *session, src string) string {
	t.Helper()
	res := s.call(t, c, "shoal_exec", map[string]any{"src": src})
	if res.IsError {
		t.Fatalf("shoal_exec %q: %s", src, text(res))
	}
	var r execResult
	structured(t, res, &r)
	return r.Render
}
