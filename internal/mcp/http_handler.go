package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/proto"
)

// httpHandler serves /mcp: after the bearer check, each request is
// charged to its token's budgets, its body read within MaxHTTPBody, and
// handed to the SDK's Streamable HTTP handler for its revision: stateless
// for 2026-07-28 and later, with sessions before.
type httpHandler struct {
	reg                 *tokens
	stateful, stateless *sdk.StreamableHTTPHandler
}

// tokenKey carries the request's tokenFacade to getServer.
type tokenKey struct{}

func newHTTPHandler(reg *tokens) http.Handler {
	h := &httpHandler{reg: reg}
	getServer := func(req *http.Request) *sdk.Server {
		if t, ok := req.Context().Value(tokenKey{}).(*tokenFacade); ok {
			return t.f.srv
		}
		return nil
	}
	h.stateful = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		SessionTimeout:      HTTPSessionIdle,
		MaxRequestBodyBytes: MaxHTTPBody,
	})
	h.stateless = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: MaxHTTPBody,
	})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, reg.requireToken(http.HandlerFunc(h.serve)))
	return mux
}

func (h *httpHandler) serve(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	t, err := h.reg.facade(ctx, sdkauth.TokenInfoFromContext(ctx))
	switch {
	case errors.Is(err, errTooManyTokens):
		(&quota{http.StatusTooManyRequests, "mcp_http_tokens", MaxHTTPTokens}).write(w)
		return
	case isAuthError(err):
		w.Header().Set("WWW-Authenticate", `Bearer realm="shoal-mcp"`)
		dropBody(w)
		http.Error(w, fmt.Sprintf("the kernel refused the token: %v", err), http.StatusUnauthorized)
		return
	case err != nil:
		http.Error(w, fmt.Sprintf("shoal-mcp: %v", err), http.StatusBadGateway)
		return
	}
	defer h.reg.release(t)
	if req.ContentLength > MaxHTTPBody {
		(&quota{http.StatusRequestEntityTooLarge, "mcp_http_body", MaxHTTPBody}).write(w)
		return
	}
	// A GET is the session's one SSE stream, bounded by the sessions.
	if req.Method != http.MethodGet {
		size := req.ContentLength
		if size < 0 {
			size = MaxHTTPBody
		}
		release, q := h.reg.admit(t, size)
		if q != nil {
			q.write(w)
			return
		}
		defer release()
	}
	if req.Method == http.MethodPost {
		body, q, err := readBody(w, req)
		if q != nil {
			q.write(w)
			return
		}
		if err != nil {
			http.Error(w, fmt.Sprintf("reading the request: %v", err), http.StatusBadRequest)
			return
		}
		if f := proto.ScanFrame(body); f.Valid && f.Depth > MaxFrameDepth {
			writeRPCError(w, http.StatusBadRequest, codeParseError, fmt.Sprintf("the request nests deeper than %d levels", MaxFrameDepth))
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	req = req.WithContext(context.WithValue(ctx, tokenKey{}, t))
	if req.Header.Get("Mcp-Protocol-Version") >= statelessFrom {
		h.stateless.ServeHTTP(w, req)
		return
	}
	if req.Method == http.MethodPost && req.Header.Get("Mcp-Session-Id") == "" {
		done, q := h.reg.openSession(t)
		if q != nil {
			q.write(w)
			return
		}
		defer done()
	}
	h.stateful.ServeHTTP(w, req)
}

// readBody reads a request body of at most MaxHTTPBody bytes, within
// HTTPBodyWait.
func readBody(w http.ResponseWriter, req *http.Request) ([]byte, *quota, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(HTTPBodyWait))
	defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxHTTPBody+1))
	if err != nil {
		return nil, nil, err
	}
	if len(body) > MaxHTTPBody {
		return nil, &quota{http.StatusRequestEntityTooLarge, "mcp_http_body", MaxHTTPBody}, nil
	}
	return body, nil, nil
}

// writeRPCError answers a JSON-RPC error with id null.
func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
