package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
)

// HTTPPath is where Streamable HTTP is served.
const HTTPPath = "/mcp"

// httpVersions are the protocol revisions offered over Streamable HTTP,
// newest first: 2026-07-28 is served statelessly, the two before it with
// sessions.
func httpVersions() []string {
	return []string{"2026-07-28", "2025-11-25", "2025-06-18"}
}

// statelessFrom is the first revision served without sessions: a request
// whose Mcp-Protocol-Version header names it or a later one goes to the
// stateless handler.
const statelessFrom = "2026-07-28"

// httpListen opens the listener for --http ADDR: 127.0.0.1:PORT,
// [::1]:PORT or unix:/path, and nothing else. It returns the URL clients
// use.
func httpListen(addr string) (net.Listener, string, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" || !strings.HasPrefix(path, "/") {
			return nil, "", fmt.Errorf("--http %s: a Unix socket address is unix:/absolute/path", addr)
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			return nil, "", fmt.Errorf("--http %s: %w", addr, err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			ln.Close()
			return nil, "", fmt.Errorf("--http %s: %w", addr, err)
		}
		return ln, "http+unix://" + url.PathEscape(path) + HTTPPath, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil || !(host == "127.0.0.1" && !strings.HasPrefix(addr, "[") || host == "::1" && strings.HasPrefix(addr, "[")) {
		return nil, "", fmt.Errorf("--http %s: not a loopback or Unix socket address (use 127.0.0.1:PORT, [::1]:PORT or unix:/path)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--http %s: %w", addr, err)
	}
	return ln, "http://" + ln.Addr().String() + HTTPPath, nil
}

// serveHTTP is shoal-mcp --http: Streamable HTTP at /mcp, each request
// authenticated by its bearer token and served by that token's own kernel
// attachment. It returns the exit status.
func serveHTTP(ctx context.Context, o *mainOptions, stderr io.Writer) int {
	ln, u, err := httpListen(o.http)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 2
	}
	defer ln.Close()
	storePath, err := auth.ResolveStorePath(o.stateDir)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: the token store: %v\n", err)
		return 1
	}
	path := o.socket
	if path == "" {
		path = client.DefaultSocketPath(o.session)
	}
	// Reach the kernel once now (starting one when allowed), so that a
	// missing kernel is an error at start rather than at the first request.
	c, k, err := connect(ctx, path, o.session, o.kernelBin, !o.noStart, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 1
	}
	c.Close()
	if k != nil {
		defer k.stop(stderr)
	}
	reg := newTokens(auth.Open(storePath), path, o.session, stderr)
	// The person at the client approves for every token's calls, as over
	// stdio (elicit.go).
	if code := setApprover(ctx, o, path, stderr); code != 0 {
		return code
	}
	reg.approver, reg.approvalWait = o.approver, o.approvalWait
	defer reg.closeAll()
	srv := &http.Server{
		Handler:           newHTTPHandler(reg),
		MaxHeaderBytes:    MaxHTTPHeader,
		ReadHeaderTimeout: HTTPHeaderWait,
		IdleTimeout:       HTTPIdleConn,
		ErrorLog:          log.New(stderr, "shoal-mcp: http: ", 0),
	}
	srv.RegisterOnShutdown(reg.closeSessions)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "shoal-mcp: listening %s\n", u)
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
		srv.Close()
		err = <-done
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 1
	}
	return 0
}
