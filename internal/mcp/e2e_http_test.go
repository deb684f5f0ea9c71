package mcp_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shoalgo/shoal/internal/auth"
)

// TestE2EHTTPRefusesOtherAddresses: --http takes 127.0.0.1:PORT,
// [::1]:PORT or unix:/path and refuses anything else at start, saying so.
func TestE2EHTTPRefusesOtherAddresses(t *testing.T) {
	k := newBase(t)
	for _, addr := range []string{"0.0.0.0:0", "localhost:0", ":0", "192.0.2.1:80", "[::]:0", "127.0.0.1", "unix:relative.sock", "unix:", "http://127.0.0.1:0"} {
		cmd := command(k, bin("shoal-mcp"), "--http", addr, "--socket", k.sock, "--no-autostart")
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
			t.Errorf("--http %s: %v, want exit 2\n%s", addr, err, out)
		}
		if !strings.Contains(string(out), "--http "+addr) {
			t.Errorf("--http %s: stderr %q does not name the address", addr, out)
		}
	}
}

// TestE2EHTTPUnixSocket: unix:/path serves at /mcp over the socket, mode
// 0600, and says where.
func TestE2EHTTPUnixSocket(t *testing.T) {
	k := startKernel(t)
	sock := filepath.Join(k.base, "mcp.sock")
	h := startHTTP(t, k, "--http", "unix:"+sock)
	if !strings.HasPrefix(h.url, "http+unix://") || !strings.HasSuffix(h.url, "/mcp") {
		t.Fatalf("url %q", h.url)
	}
	st, err := os.Stat(sock)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v; want mode 0600", st, err)
	}
	c := unixClient(sock, "")
	resp, err := c.Post("http://localhost/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token over the Unix socket: %s", resp.Status)
	}
	secret := newToken(t, k, "agent:unix")
	s, err := connectHTTPClient(t, "http://localhost/mcp", unixClient(sock, secret), "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	if got := execOK(t, ctx(t), s, "6 * 7"); got != "42" {
		t.Fatalf("6 * 7 = %q", got)
	}
	// SIGTERM: it stops serving, exits 0 and removes its socket, even
	// with a session's SSE stream open.
	h.cmd.Process.Signal(syscall.SIGTERM)
	<-h.exited
	if code := h.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, h.errText())
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("the socket is still there: %v", err)
	}
}

// TestE2EHTTPUnauthorized: a request without a bearer token, with a
// malformed one, an unknown one or a revoked one is HTTP 401 (with
// WWW-Authenticate: Bearer) before any MCP processing; the SDK's client
// cannot connect.
func TestE2EHTTPUnauthorized(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	revoked := newToken(t, k, "agent:gone")
	store := auth.Open(k.store)
	toks, err := store.List()
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens %v, %v", toks, err)
	}
	if err := store.Revoke(toks[0].ID); err != nil {
		t.Fatal(err)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for what, header := range map[string]string{
		"no token":      "",
		"not bearer":    "Basic dXNlcjpwdw==",
		"empty bearer":  "Bearer ",
		"unknown token": "Bearer shoal_" + strings.Repeat("A", 43),
		"garbage":       "Bearer not-a-token",
		"revoked token": "Bearer " + revoked,
	} {
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %s %q (WWW-Authenticate %q), want 401", what, resp.Status, body, resp.Header.Get("WWW-Authenticate"))
		}
		if resp.Header.Get("Mcp-Session-Id") != "" || strings.Contains(string(body), "serverInfo") {
			t.Errorf("%s: MCP processing happened: %q", what, body)
		}
	}
	for _, secret := range []string{"", "shoal_nope", revoked} {
		if _, err := connectHTTP(t, h, secret, "2025-11-25"); err == nil {
			t.Errorf("the SDK's client connected with token %q", secret)
		}
	}
	h.alive(t)
}

// TestE2EHTTPRunsAsTokenPrincipal: each request runs as its token's
// principal, through that token's own attachment: a principal the policy
// lets write saves a file, one it does not is refused with the kernel's
// code, and one token cannot use a session another opened.
func TestE2EHTTPRunsAsTokenPrincipal(t *testing.T) {
	k := newBase(t)
	policy := filepath.Join(k.base, "policy.toml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, `[principal."agent:writer"]
opaque = "allow"
auto_apply = "in-grant"
journal_read = true
[principal."agent:writer".fs]
read = [%[1]q]
write = [%[1]q]

[principal."agent:reader"]
[principal."agent:reader".fs]
read = [%[1]q]
`, k.dir+"/**"), 0o600); err != nil {
		t.Fatal(err)
	}
	k.start(t, "--policy", policy)
	h := startHTTP(t, k)
	writer := mustConnectHTTP(t, h, newToken(t, k, "agent:writer"), "2025-11-25")
	reader := mustConnectHTTP(t, h, newToken(t, k, "agent:reader"), "2025-11-25")

	res := writer.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"from the writer".save("w.txt")`, "position": "stmt"})
	if res.IsError {
		t.Fatalf("the writer's save: %s", text(res))
	}
	if b, err := os.ReadFile(filepath.Join(k.dir, "w.txt")); err != nil || string(b) != "from the writer" {
		t.Fatalf("w.txt = %q, %v", b, err)
	}
	res = reader.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"from the reader".save("r.txt")`, "position": "stmt"})
	if !res.IsError {
		t.Fatalf("the reader's save was not refused: %s", text(res))
	}
	var e toolErr
	structured(t, res, &e)
	if e.Code != -32010 && e.Code != -32011 {
		t.Fatalf("the reader's save: code %d (%s), want a policy refusal", e.Code, e.Message)
	}
	if _, err := os.Stat(filepath.Join(k.dir, "r.txt")); !os.IsNotExist(err) {
		t.Fatalf("r.txt exists after a refused save: %v", err)
	}
	// The journal names each entry's principal.
	res = writer.call(t, ctx(t), "shoal_journal", map[string]any{"principal": "agent:writer", "limit": 5})
	if res.IsError || !strings.Contains(text(res), "agent:writer") {
		t.Fatalf("the writer's journal: %s", text(res))
	}

	// The reader's token on the writer's session is refused by the SDK
	// (the session belongs to the token that opened it).
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"\"stolen\".save(\"s.txt\")"}}}`
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", writer.cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := bearerClient(readerSecret(t, k)).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another token on the writer's session: %s, want 403", resp.Status)
	}
	if _, err := os.Stat(filepath.Join(k.dir, "s.txt")); !os.IsNotExist(err) {
		t.Fatalf("s.txt exists: %v", err)
	}
	if !strings.Contains(h.errText(), "as agent:writer") || !strings.Contains(h.errText(), "as agent:reader") {
		t.Errorf("stderr does not name the principals:\n%s", h.errText())
	}
}

// readerSecret makes one more token of agent:reader.
func readerSecret(t *testing.T, k *kernel) string { return newToken(t, k, "agent:reader") }

// TestE2EHTTPRevisions: the SDK's client negotiates each offered
// revision: 2025-06-18 and 2025-11-25 with a session (Mcp-Session-Id),
// 2026-07-28 statelessly (server/discover, no session); the tools work
// in each.
func TestE2EHTTPRevisions(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	secret := newToken(t, k, "agent:rev")
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		s := mustConnectHTTP(t, h, secret, v)
		if got := s.cs.InitializeResult().ProtocolVersion; got != v {
			t.Errorf("offered %s, negotiated %s", v, got)
		}
		if stateless := s.cs.ID() == ""; stateless != (v == "2026-07-28") {
			t.Errorf("%s: session id %q", v, s.cs.ID())
		}
		if got := execOK(t, ctx(t), s, "[1, 2, 3].map(x => x * 14).sum()"); got != "84" {
			t.Errorf("%s: exec = %q", v, got)
		}
		tl, err := s.cs.ListTools(ctx(t), nil)
		if err != nil || len(tl.Tools) != 13 {
			t.Errorf("%s: tools/list = %v, %v", v, tl, err)
		}
	}
	// An older revision is answered with the newest session revision.
	s := mustConnectHTTP(t, h, secret, "2025-03-26")
	if got := s.cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("offered 2025-03-26, negotiated %s", got)
	}
}

// TestE2EHTTPViaShoalAndIPv6: shoal mcp --http serves as shoal-mcp
// --http does, here on [::1] (skipped where the machine has no IPv6
// loopback).
func TestE2EHTTPViaShoalAndIPv6(t *testing.T) {
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	} else {
		ln.Close()
	}
	k := startKernel(t)
	h := startHTTPWith(t, k, bin("shoal"), "mcp", "--http", "[::1]:0", "--socket", k.sock, "--no-autostart")
	if !strings.HasPrefix(h.url, "http://[::1]:") {
		t.Fatalf("url %q", h.url)
	}
	s := mustConnectHTTP(t, h, newToken(t, k, "agent:v6"), "2025-06-18")
	if got := execOK(t, ctx(t), s, "6 * 7"); got != "42" {
		t.Fatalf("6 * 7 = %q", got)
	}
}
