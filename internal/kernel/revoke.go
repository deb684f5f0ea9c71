package kernel

import (
	"context"
	"errors"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// Live revocation. A connection attached with a token is served only while
// the token stays usable. Every TokenRecheck the kernel looks each token its
// connections attached with up in the store (which re-reads the file when it
// changed, and at least every half second); a token revoked, expired,
// removed, changed or no longer readable cuts every attachment made with it:
//
//   - the connection is detached: its next request, whatever the method,
//     answers AUTH_FAILED (-32030) until it attaches again with a usable
//     credential;
//   - its requests in flight are cancelled and answer AUTH_FAILED too, so
//     nothing computed for the token is delivered after the cut;
//   - every subscription of the connection ends, and the kernel sends one
//     session.detached notification {session, principal, token, reason,
//     message};
//   - the tasks started through the attachment are cancelled, language
//     tasks its execs started included (langtasks.go).
//
// The session itself is not closed: other connections may hold it, and it
// closes when idle like any other.

// Reasons a token attachment is cut, as the notification and the
// AUTH_FAILED data name them.
const (
	cutRevoked          = "token_revoked"
	cutExpired          = "token_expired"
	cutRemoved          = "token_removed"
	cutChanged          = "token_changed"
	cutStoreUnavailable = "token_store_unavailable"
)

// tokenCut is why an attachment was cut.
type tokenCut struct {
	reason string
	err    error // the store's answer
}

func (c *tokenCut) Error() string { return c.err.Error() }

// authError is the AUTH_FAILED answer of a cut attachment.
func (c *tokenCut) authError() *proto.RPCError {
	return proto.NewError(proto.CodeAuthFailed,
		"authentication failed: "+c.err.Error()+"; this connection is detached, attach again with another credential",
		map[string]any{"reason": c.reason})
}

// classifyCut names the reason for a store answer about a token.
func classifyCut(err error) string {
	switch {
	case errors.Is(err, auth.ErrTokenRevoked):
		return cutRevoked
	case errors.Is(err, auth.ErrTokenExpired):
		return cutExpired
	case errors.Is(err, auth.ErrUnknownID):
		return cutRemoved
	case errors.Is(err, auth.ErrStoreUnavailable):
		return cutStoreUnavailable
	}
	return cutChanged
}

// arm gives a token attachment the context its work runs
// under, cancelled (with a *tokenCut cause) when the token stops being
// usable. It is not derived from the connection's context: tasks outlive
// their connection but not their token.
func (a *attachment) arm() {
	a.cut, a.cutOff = context.WithCancelCause(context.Background())
}

// cutErr returns the AUTH_FAILED error of a cut attachment, nil otherwise.
func (a *attachment) cutErr() error {
	if a == nil || a.cut == nil || a.cut.Err() == nil {
		return nil
	}
	var tc *tokenCut
	if errors.As(context.Cause(a.cut), &tc) {
		return tc.authError()
	}
	return proto.NewError(proto.CodeAuthFailed, "authentication failed: this connection is detached", nil)
}

// requestContext returns the context a request of the attachment runs
// under: parent, also cancelled when the attachment is cut. stop must be
// called when the request ends.
func (a *attachment) requestContext(parent context.Context) (ctx context.Context, stop func()) {
	if a == nil || a.cut == nil {
		return parent, func() {}
	}
	ctx, cancel := context.WithCancel(parent)
	unhook := context.AfterFunc(a.cut, cancel)
	return ctx, func() { unhook(); cancel() }
}

// bindTask cancels t when the attachment that started it is cut.
func (a *attachment) bindTask(sess *session, t *tasks.Task) {
	if a == nil || a.cut == nil {
		return
	}
	unhook := context.AfterFunc(a.cut, func() { _, _ = sess.tasks.Cancel(sess.owner(), t.ID()) })
	go func() {
		<-t.Done()
		unhook()
	}()
}

// detachedParams are the params of a session.detached notification.
type detachedParams = proto.Detached

// cutOff detaches the connection from a, if a is still its attachment,
// ending its subscriptions, cancelling its work and giving back its holds.
func (c *conn) cutOff(a *attachment, cut *tokenCut) {
	c.mu.Lock()
	if c.att != a {
		c.mu.Unlock()
		return
	}
	c.att = nil
	c.detached = cut
	subs := c.subs
	c.subs = nil
	held := c.held
	c.held = nil
	c.mu.Unlock()

	a.cutOff(cut)
	if subs != nil {
		subs.Close()
	}
	for s := range held {
		s.release()
	}
	c.srv.log.Warn("detached a connection whose token is no longer usable",
		"principal", a.principal, "token", a.tokenID, "reason", cut.reason, "err", cut.err)
	c.send(proto.NewNotification(proto.MethodSessionDetached, &detachedParams{
		Session: a.sess.key.name, Principal: a.principal, Token: a.tokenID,
		Reason: cut.reason, Message: cut.authError().Message,
	}))
}

// detachedErr is the answer every request but session.attach gets after
// the connection's attachment was cut; nil when it was not.
func (c *conn) detachedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached == nil {
		return nil
	}
	return c.detached.authError()
}

// watchTokens re-checks the tokens of attached connections until the
// server shuts down.
func (s *Server) watchTokens() {
	if s.store == nil {
		return
	}
	tick := time.NewTicker(TokenRecheck)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
			s.recheckTokens()
		}
	}
}

// recheckTokens looks up every token a connection is attached with and
// cuts the attachments of those no longer usable.
func (s *Server) recheckTokens() {
	type attached struct {
		c *conn
		a *attachment
	}
	byToken := map[string][]attached{}
	s.mu.Lock()
	for c := range s.conns {
		if a := c.attachment(); a != nil && a.cut != nil {
			byToken[a.tokenID] = append(byToken[a.tokenID], attached{c, a})
		}
	}
	s.mu.Unlock()
	for id, list := range byToken {
		tok, err := s.store.Lookup(id)
		if errors.Is(err, auth.ErrStoreUnavailable) {
			s.noteStoreTrouble(err)
		}
		for _, at := range list {
			cerr := err
			if cerr == nil && (tok.Principal != at.a.principal || tok.Profile != at.a.profile) {
				cerr = errors.New("token " + id + " now names another principal or profile")
			}
			if cerr != nil {
				at.c.cutOff(at.a, &tokenCut{reason: classifyCut(cerr), err: cerr})
			}
		}
	}
}
