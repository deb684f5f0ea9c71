package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/proto"
)

// tokens are the bearer tokens seen over HTTP, each with a kernel
// attachment of its own made with that token, so the kernel applies
// policy to its principal as for any client. Requests of one token never
// reach another's attachment, and the SDK refuses a session to any token
// but the one that opened it (its user id is the token id).
type tokens struct {
	store         *auth.Store
	path, session string
	stderr        io.Writer
	// approver and approvalWait are --approver-token and --approval-wait,
	// given to every token's facade (elicit.go); approver "" never asks.
	approver     string
	approvalWait time.Duration

	mu   sync.Mutex
	byID map[string]*tokenFacade
	// What is being served, for the budgets (http_budget.go).
	reqs, bytes int64
}

// tokenFacade is one token's attachment and facade, and its share of the
// budgets.
type tokenFacade struct {
	id, principal string
	ready         chan struct{} // closed once f or err is set
	f             *Facade
	c             *client.Client
	err           error

	// Guarded by tokens.mu: the budgets' charges, the requests using
	// the attachment now (it is not dropped while there are any), and
	// when the last one ended.
	reqs, bytes, opening int64
	users                int
	lastUsed             time.Time
}

func newTokens(store *auth.Store, path, session string, stderr io.Writer) *tokens {
	return &tokens{store: store, path: path, session: session, stderr: stderr, byID: make(map[string]*tokenFacade)}
}

// verify is the bearer check: the secret must be a valid token of the
// store (the one the kernel and shoal-token use). Any failure is
// sdkauth.ErrInvalidToken, which the middleware answers 401.
func (r *tokens) verify(_ context.Context, secret string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	tok, err := r.store.Validate(secret)
	if err != nil {
		if errors.Is(err, auth.ErrStoreUnavailable) {
			return nil, fmt.Errorf("%w: the token store cannot be read", sdkauth.ErrInvalidToken)
		}
		return nil, fmt.Errorf("%w: %s", sdkauth.ErrInvalidToken, tokenReason(err))
	}
	info := &sdkauth.TokenInfo{UserID: tok.ID, Scopes: tok.Caps, Extra: map[string]any{"secret": secret, "principal": tok.Principal}}
	if !tok.Expires.IsZero() {
		info.Expiration = tok.Expires
	}
	return info, nil
}

// tokenReason says why a secret was refused without echoing it.
func tokenReason(err error) string {
	switch {
	case errors.Is(err, auth.ErrTokenRevoked):
		return "the token is revoked"
	case errors.Is(err, auth.ErrTokenExpired):
		return "the token has expired"
	}
	return "unknown token"
}

// requireToken answers 401 (with WWW-Authenticate: Bearer) to a request
// without a valid bearer token, before anything else reads it.
func (r *tokens) requireToken(next http.Handler) http.Handler {
	check := sdkauth.RequireBearerToken(r.verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		check.ServeHTTP(&challenge{ResponseWriter: w}, req)
	})
}

// challenge adds WWW-Authenticate to a 401 answer.
type challenge struct{ http.ResponseWriter }

func (c *challenge) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		c.Header().Set("WWW-Authenticate", `Bearer realm="shoal-mcp"`)
		dropBody(c.ResponseWriter)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Flush passes SSE flushes through.
func (c *challenge) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *challenge) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// errTooManyTokens refuses a token when MaxHTTPTokens attachments exist.
var errTooManyTokens = errors.New("too many tokens attached")

// facade returns the attachment of the request's (verified) token, making
// it on first use: a fresh kernel connection attached with that token.
// When MaxHTTPTokens attachments exist, those of tokens no longer valid
// are dropped, then the one idle longest (no request, no MCP session).
// The caller gives it back with release when the request ends.
func (r *tokens) facade(ctx context.Context, info *sdkauth.TokenInfo) (*tokenFacade, error) {
	id := info.UserID
	r.mu.Lock()
	t, ok := r.byID[id]
	if ok {
		t.users++
		r.mu.Unlock()
	} else {
		if len(r.byID) >= MaxHTTPTokens {
			r.dropInvalidLocked()
		}
		if len(r.byID) >= MaxHTTPTokens {
			r.dropIdleLocked()
		}
		if len(r.byID) >= MaxHTTPTokens {
			r.mu.Unlock()
			return nil, errTooManyTokens
		}
		t = &tokenFacade{id: id, ready: make(chan struct{}), users: 1}
		t.principal, _ = info.Extra["principal"].(string)
		r.byID[id] = t
		r.mu.Unlock()
		secret, _ := info.Extra["secret"].(string)
		t.f, t.c, t.err = r.attach(context.WithoutCancel(ctx), secret)
		if t.err != nil {
			r.mu.Lock()
			delete(r.byID, id)
			r.mu.Unlock()
		} else {
			fmt.Fprintf(r.stderr, "shoal-mcp: token %s attached to session %q as %s\n", id, r.session, t.principal)
		}
		close(t.ready)
	}
	select {
	case <-t.ready:
	case <-ctx.Done():
		r.release(t)
		return nil, ctx.Err()
	}
	if t.err != nil {
		r.release(t)
		return nil, t.err
	}
	return t, nil
}

// release ends a request's use of t.
func (r *tokens) release(t *tokenFacade) {
	r.mu.Lock()
	t.users--
	t.lastUsed = time.Now()
	r.mu.Unlock()
}

// attach dials the kernel and attaches with secret.
func (r *tokens) attach(ctx context.Context, secret string) (*Facade, *client.Client, error) {
	c, err := client.Dial(ctx, r.path, client.WithReconnect(kernelReconnect))
	if err != nil {
		return nil, nil, fmt.Errorf("the kernel at %s: %w", r.path, err)
	}
	params := client.AttachParams{Session: r.session, Token: secret, Client: &client.ClientInfo{Kind: "mcp"}}
	att, err := c.Attach(ctx, params)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("attach to session %q: %w", r.session, err)
	}
	f, err := newFacade(c, r.stderr, httpVersions())
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	f.path, f.attach = r.path, params
	if r.approver != "" {
		f.approval = approval{token: r.approver, wait: r.approvalWait, agent: att.Principal}
	}
	return f, c, nil
}

// dropInvalidLocked closes the attachments of tokens the store no longer
// accepts (revoked, expired, removed).
func (r *tokens) dropInvalidLocked() {
	for id, t := range r.byID {
		if !t.isReady() {
			continue // still attaching
		}
		if _, err := r.store.Lookup(id); err != nil && t.users == 0 {
			delete(r.byID, id)
			t.close()
		}
	}
}

// dropIdleLocked closes the attachment idle longest: no request using it
// and no MCP session open on it.
func (r *tokens) dropIdleLocked() {
	var idle *tokenFacade
	for _, t := range r.byID {
		if !t.isReady() || t.users > 0 || t.sessions() > 0 {
			continue
		}
		if idle == nil || t.lastUsed.Before(idle.lastUsed) {
			idle = t
		}
	}
	if idle != nil {
		delete(r.byID, idle.id)
		idle.close()
	}
}

func (t *tokenFacade) close() {
	if t.f != nil {
		t.f.dropSubscriptions()
		for ss := range t.f.srv.Sessions() {
			ss.Close()
		}
	}
	if t.c != nil {
		t.c.Close()
	}
}

// closeSessions closes every MCP session, which ends their SSE streams
// (the server is shutting down and would otherwise wait on them).
func (r *tokens) closeSessions() {
	r.mu.Lock()
	var all []*tokenFacade
	for _, t := range r.byID {
		if t.isReady() && t.f != nil {
			all = append(all, t)
		}
	}
	r.mu.Unlock()
	for _, t := range all {
		for ss := range t.f.srv.Sessions() {
			ss.Close()
		}
	}
}

// closeAll ends every attachment (shoal-mcp is exiting).
func (r *tokens) closeAll() {
	r.mu.Lock()
	all := r.byID
	r.byID = map[string]*tokenFacade{}
	r.mu.Unlock()
	for _, t := range all {
		<-t.ready
		t.close()
	}
}

// isAuthError reports a kernel refusal of the token itself.
func isAuthError(err error) bool {
	var re *proto.RPCError
	return errors.As(err, &re) && re.Code == proto.CodeAuthFailed
}
