package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/mcp"
)

// The HTTP bounds are crossed tenfold through the real shoal-mcp: the
// requests past a bound are refused with HTTP 429 (413 for a body) and a
// JSON-RPC error body, code -32010, data {code: "quota_exceeded",
// budget, limit}; shoal-mcp stays up and another token is served.

// rawResult is one raw request's answer.
type rawResult struct {
	status int
	body   string
	err    error
}

// quotaBody is a refusal's JSON-RPC error.
type quotaBody struct {
	Error struct {
		Code int `json:"code"`
		Data struct {
			Code   string `json:"code"`
			Budget string `json:"budget"`
			Limit  int64  `json:"limit"`
		} `json:"data"`
	} `json:"error"`
}

// budgetOf reads the budget a refusal names, failing the test when r is
// not a quota_exceeded refusal with status.
func budgetOf(t testing.TB, r rawResult, status int) string {
	t.Helper()
	var q quotaBody
	if r.err != nil || r.status != status || json.Unmarshal([]byte(r.body), &q) != nil || q.Error.Code != -32010 || q.Error.Data.Code != "quota_exceeded" {
		t.Fatalf("want a %d quota_exceeded refusal, got %d %q (%v)", status, r.status, r.body, r.err)
	}
	return q.Error.Data.Budget
}

// stalledPost opens a connection to h and sends a stateless (2026-07-28)
// POST with secret declaring length bytes of body (chunked when length <
// 0), of which it sends only the first byte. The answer arrives on the
// returned channel; closing the connection ends an admitted request.
func stalledPost(t testing.TB, h *httpFacade, secret string, length int64, out chan<- rawResult) net.Conn {
	t.Helper()
	u, err := url.Parse(h.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	size := fmt.Sprintf("Content-Length: %d\r\n", length)
	first := "{"
	if length < 0 {
		size, first = "Transfer-Encoding: chunked\r\n", "1\r\n{\r\n"
	}
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n%s\r\n%s", u.Host, secret, size, first)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			out <- rawResult{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out <- rawResult{status: resp.StatusCode, body: string(b)}
	}()
	return conn
}

// flood sends per stalled requests for each secret, all at once, each
// declaring length bytes. It waits for the refused ones (all but admit),
// which must be 429s, and returns the budgets they name. Then it closes
// every connection and checks that the admit requests left were not
// refused: exactly admit were admitted.
func flood(t *testing.T, h *httpFacade, secrets []string, per int, length int64, admit int, during func()) map[string]int {
	t.Helper()
	total := len(secrets) * per
	out := make(chan rawResult, total)
	var conns []net.Conn
	for range per {
		for _, s := range secrets {
			conns = append(conns, stalledPost(t, h, s, length, out))
		}
	}
	budgets := map[string]int{}
	c := ctx(t) // a guard against a hang, not a timing assertion
	for i := range total - admit {
		select {
		case r := <-out:
			budgets[budgetOf(t, r, http.StatusTooManyRequests)]++
		case <-c.Done():
			t.Fatalf("%d of %d requests answered, want %d refused (so more than %d were admitted)", i, total, total-admit, admit)
		}
	}
	h.alive(t)
	if during != nil {
		during()
	}
	for _, c := range conns {
		c.Close()
	}
	for range admit {
		if r := <-out; r.status == http.StatusTooManyRequests {
			t.Fatalf("more than %d refused: %q", total-admit, r.body)
		}
	}
	return budgets
}

// served checks that secret's requests are served: a stateless call.
func served(t *testing.T, h *httpFacade, secret string) {
	t.Helper()
	s := mustConnectHTTP(t, h, secret, "2026-07-28")
	if got := execOK(t, ctx(t), s, "6 * 7"); got != "42" {
		t.Fatalf("another token's call = %q", got)
	}
	s.cs.Close()
}

// tokensFor makes n tokens, each of its own principal, and has each
// attach (one served call) before a flood.
func tokensFor(t *testing.T, k *kernel, h *httpFacade, n int) []string {
	var out []string
	for i := range n {
		s := newToken(t, k, fmt.Sprintf("agent:t%d", i))
		served(t, h, s)
		out = append(out, s)
	}
	return out
}

// TestE2EHTTPBodyBound: a body over MaxHTTPBody, declared (10×) or sent
// chunked (10×), is refused 413 mcp_http_body; shoal-mcp goes on serving.
func TestE2EHTTPBodyBound(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	toks := tokensFor(t, k, h, 2)
	out := make(chan rawResult, 1)
	c := stalledPost(t, h, toks[0], 10*mcp.MaxHTTPBody, out)
	if b := budgetOf(t, <-out, http.StatusRequestEntityTooLarge); b != "mcp_http_body" {
		t.Fatalf("declared 10× body: budget %s", b)
	}
	c.Close()
	// Chunked: the body is read until it passes the bound.
	c = stalledPost(t, h, toks[0], -1, out)
	chunk := strings.Repeat("x", 1<<20)
	go func() {
		for range 10 * mcp.MaxHTTPBody >> 20 {
			if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
				return
			}
		}
		fmt.Fprint(c, "0\r\n\r\n")
	}()
	if b := budgetOf(t, <-out, http.StatusRequestEntityTooLarge); b != "mcp_http_body" {
		t.Fatalf("chunked 10× body: budget %s", b)
	}
	c.Close()
	h.alive(t)
	served(t, h, toks[1])
	served(t, h, toks[0])
}

// TestE2EHTTPRequestBounds: 10× MaxHTTPTokenRequests stalled requests of
// one token: exactly that many are admitted, the rest refused
// mcp_http_token_requests, while another token is served; then 10×
// MaxHTTPRequests spread over five tokens: exactly MaxHTTPRequests are
// admitted, and the process-wide budget is named.
func TestE2EHTTPRequestBounds(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	toks := tokensFor(t, k, h, 6)
	b := flood(t, h, toks[:1], 10*mcp.MaxHTTPTokenRequests, 2, mcp.MaxHTTPTokenRequests, func() { served(t, h, toks[5]) })
	if b["mcp_http_token_requests"] != 9*mcp.MaxHTTPTokenRequests {
		t.Fatalf("one token's flood: %v", b)
	}
	b = flood(t, h, toks[:5], 2*mcp.MaxHTTPRequests, 2, mcp.MaxHTTPRequests, nil)
	if b["mcp_http_requests"] == 0 || b["mcp_http_token_requests"]+b["mcp_http_requests"] != 9*mcp.MaxHTTPRequests {
		t.Fatalf("five tokens' flood: %v", b)
	}
	for _, s := range toks {
		served(t, h, s)
	}
}

// TestE2EHTTPMemoryBounds: requests declaring MaxHTTPBody each, 10× what
// one token may hold (MaxHTTPTokenBytes): the budget admits exactly what
// fits and refuses the rest mcp_http_token_bytes while another token is
// served; then 10× what all may hold (MaxHTTPBytes) over five tokens.
func TestE2EHTTPMemoryBounds(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	toks := tokensFor(t, k, h, 6)
	perToken := mcp.MaxHTTPTokenBytes / mcp.MaxHTTPBody
	b := flood(t, h, toks[:1], 10*perToken, mcp.MaxHTTPBody, perToken, func() { served(t, h, toks[5]) })
	if b["mcp_http_token_bytes"] != 9*perToken {
		t.Fatalf("one token's flood: %v", b)
	}
	all := mcp.MaxHTTPBytes / mcp.MaxHTTPBody
	b = flood(t, h, toks[:5], 2*all, mcp.MaxHTTPBody, all, nil)
	if b["mcp_http_bytes"] == 0 || b["mcp_http_token_bytes"]+b["mcp_http_bytes"] != 9*all {
		t.Fatalf("five tokens' flood: %v", b)
	}
	for _, s := range toks {
		served(t, h, s)
	}
}

// initialize opens a session with secret (a raw initialize, 2025-11-25).
func initialize(h *httpFacade, secret string) rawResult {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := bearerClient(secret).Do(req)
	if err != nil {
		return rawResult{err: err}
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.Header.Get("Mcp-Session-Id") == "" {
		return rawResult{status: resp.StatusCode, body: string(b), err: fmt.Errorf("no session id")}
	}
	return rawResult{status: resp.StatusCode, body: string(b)}
}

// TestE2EHTTPSessionBounds: 10× MaxHTTPTokenSessions initializes of one
// token open exactly that many sessions, the rest refused
// mcp_http_token_sessions; a session opened before still works. Then
// 10× MaxHTTPSessions initializes over five tokens open exactly
// MaxHTTPSessions in all, naming the process-wide budget; a token with
// no session left is still served statelessly.
func TestE2EHTTPSessionBounds(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	toks := tokensFor(t, k, h, 6)
	early := mustConnectHTTP(t, h, toks[0], "2025-11-25") // one of toks[0]'s sessions
	opened, budgets := 1, map[string]int{}
	for range 10*mcp.MaxHTTPTokenSessions - 1 {
		r := initialize(h, toks[0])
		if r.status == http.StatusOK && r.err == nil {
			opened++
			continue
		}
		budgets[budgetOf(t, r, http.StatusTooManyRequests)]++
	}
	if opened != mcp.MaxHTTPTokenSessions || budgets["mcp_http_token_sessions"] != 9*mcp.MaxHTTPTokenSessions {
		t.Fatalf("one token: %d opened, refusals %v", opened, budgets)
	}
	if got := execOK(t, ctx(t), early, "1 + 1"); got != "2" {
		t.Fatalf("a session opened before: %q", got)
	}
	served(t, h, toks[5])

	var mu sync.Mutex
	var wg sync.WaitGroup
	budgets = map[string]int{}
	per := (10*mcp.MaxHTTPSessions - 10*mcp.MaxHTTPTokenSessions) / 4
	for _, s := range toks[1:5] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				r := initialize(h, s)
				mu.Lock()
				if r.status == http.StatusOK && r.err == nil {
					opened++
				} else {
					var q quotaBody
					json.Unmarshal([]byte(r.body), &q)
					budgets[fmt.Sprintf("%d %s", r.status, q.Error.Data.Budget)]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if opened != mcp.MaxHTTPSessions || budgets["429 mcp_http_sessions"] == 0 ||
		budgets["429 mcp_http_sessions"]+budgets["429 mcp_http_token_sessions"] != 4*per-(mcp.MaxHTTPSessions-mcp.MaxHTTPTokenSessions) {
		t.Fatalf("five tokens: %d opened in all, refusals %v", opened, budgets)
	}
	h.alive(t)
	served(t, h, toks[5])
	if got := execOK(t, ctx(t), early, "2 + 2"); got != "4" {
		t.Fatalf("a session opened before: %q", got)
	}
}

// TestE2EHTTPTokenBound: 10× MaxHTTPTokens tokens, each with one stalled
// request at once: exactly MaxHTTPTokens get a kernel attachment and are
// admitted, the rest are refused mcp_http_tokens; once those requests
// end, idle attachments give way and a new token is served.
func TestE2EHTTPTokenBound(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	var secrets []string
	for i := range 10 * mcp.MaxHTTPTokens {
		secrets = append(secrets, newToken(t, k, fmt.Sprintf("agent:many%d", i)))
	}
	b := flood(t, h, secrets, 1, 2, mcp.MaxHTTPTokens, nil)
	if b["mcp_http_tokens"] != 9*mcp.MaxHTTPTokens {
		t.Fatalf("refusals %v", b)
	}
	h.alive(t)
	served(t, h, newToken(t, k, "agent:later"))
	served(t, h, secrets[0])
}

// TestE2EHTTPDeepBody: a body nested 10× MaxFrameDepth (and 100,000
// deep) is refused 400 with -32700 before the SDK decodes it; shoal-mcp
// goes on serving.
func TestE2EHTTPDeepBody(t *testing.T) {
	k := startKernel(t)
	h := startHTTP(t, k)
	secret := newToken(t, k, "agent:deep")
	for _, n := range []int{10 * mcp.MaxFrameDepth, 100000} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		resp, err := bearerClient(secret).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "-32700") {
			t.Fatalf("%d deep: %s %.200s", n, resp.Status, b)
		}
	}
	h.alive(t)
	served(t, h, secret)
}
