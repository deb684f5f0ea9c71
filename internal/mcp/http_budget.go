package mcp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// quota is a budget a request did not fit: its name and limit, answered
// as HTTP status with a JSON-RPC error body (code -32010, data
// {code: "quota_exceeded", budget, limit}), as the stdio facade answers
// its in-flight budget.
type quota struct {
	status int
	budget string
	limit  int64
}

// write answers q. The id is null: the request was not read.
func (q *quota) write(w http.ResponseWriter) {
	body := map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error": map[string]any{
			"code":    codeQuota,
			"message": "quota exceeded: " + q.budget + " (limit " + strconv.FormatInt(q.limit, 10) + ")",
			"data":    map[string]any{"code": "quota_exceeded", "budget": q.budget, "limit": q.limit},
		},
	}
	b, _ := json.Marshal(body)
	dropBody(w)
	w.Header().Set("Content-Type", "application/json")
	if q.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(q.status)
	_, _ = w.Write(b)
}

// admit charges one request of t holding size bytes of body against the
// token's and the process's budgets, or says which it does not fit. The
// returned function gives the charge back.
func (r *tokens) admit(t *tokenFacade, size int64) (func(), *quota) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case t.reqs+1 > MaxHTTPTokenRequests:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_token_requests", MaxHTTPTokenRequests}
	case r.reqs+1 > MaxHTTPRequests:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_requests", MaxHTTPRequests}
	case t.bytes+size > MaxHTTPTokenBytes:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_token_bytes", MaxHTTPTokenBytes}
	case r.bytes+size > MaxHTTPBytes:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_bytes", MaxHTTPBytes}
	}
	t.reqs++
	r.reqs++
	t.bytes += size
	r.bytes += size
	return func() {
		r.mu.Lock()
		t.reqs--
		r.reqs--
		t.bytes -= size
		r.bytes -= size
		r.mu.Unlock()
	}, nil
}

// openSession admits a request that may open an MCP session for t: the
// sessions t and all tokens keep open, with those being opened, stay
// within their bounds. The returned function ends the opening (the
// session is then open, and counted as such, or gone).
func (r *tokens) openSession(t *tokenFacade) (func(), *quota) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := int64(0)
	for _, o := range r.byID {
		if o == t || o.isReady() {
			all += o.sessions()
		}
	}
	switch {
	case t.sessions()+1 > MaxHTTPTokenSessions:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_token_sessions", MaxHTTPTokenSessions}
	case all+1 > MaxHTTPSessions:
		return nil, &quota{http.StatusTooManyRequests, "mcp_http_sessions", MaxHTTPSessions}
	}
	t.opening++
	return func() {
		r.mu.Lock()
		t.opening--
		r.mu.Unlock()
	}, nil
}

// sessions counts t's open MCP sessions (those with an id: a stateless
// request's passing session has none) and those being opened. Called
// with tokens.mu held.
func (t *tokenFacade) sessions() int64 {
	n := t.opening
	if t.f == nil {
		return n
	}
	for ss := range t.f.srv.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// isReady reports whether t's attachment is made (or failed), so that its
// f may be read.
func (t *tokenFacade) isReady() bool {
	select {
	case <-t.ready:
		return true
	default:
		return false
	}
}

// dropBody makes a refusal close its connection without reading what is
// left of the request body: the server would otherwise read up to 256 KiB
// of it before answering, and a client that stalls its upload would hold
// the refusal back.
func dropBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
