package kernel

import (
	"context"
	"encoding/base64"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/proto"
)

// DefaultSession is the session an attach without a name selects.
const DefaultSession = "default"

// LocalProfile is the profile of the kernel owner's tokenless principal.
const LocalProfile = "local-human"

// attachment is what session.attach grants a connection.
type attachment struct {
	sess      *session
	principal string
	profile   string
	caps      []string // the token's declared caps; nil without a token
	tokenID   string
	// grants are the principal's policy grants narrowed by the token's
	// caps, fixed at attach (grants.go).
	grants *policy.Grants

	// Token attachments only (nil for the owner's): cancelled, with a
	// *tokenCut cause, when the token stops being usable (revoke.go).
	cut    context.Context
	cutOff context.CancelCauseFunc
}

// checkSessionLabel accepts any non-empty printable UTF-8 name of at most
// 128 bytes.
func checkSessionLabel(name string) error {
	if name == "" || len(name) > 128 || !utf8.ValidString(name) {
		return proto.NewError(proto.CodeInvalidParams, "invalid params: session must be 1-128 bytes of UTF-8", nil)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return proto.NewError(proto.CodeInvalidParams, "invalid params: session name holds a control character", nil)
		}
	}
	return nil
}

func handleAttach(ctx context.Context, c *call) (any, error) {
	var p proto.AttachParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	name := DefaultSession
	if p.HasSession() {
		name = p.Session
	}
	if err := checkSessionLabel(name); err != nil {
		return nil, err
	}
	srv := c.conn.srv
	att := &attachment{principal: srv.local, profile: LocalProfile}
	if p.HasToken() {
		tok, err := srv.validateToken(p.Token)
		if err != nil {
			return nil, err
		}
		att.principal, att.profile, att.caps, att.tokenID = tok.Principal, tok.Profile, tok.Caps, tok.ID
	}
	att.grants = srv.policy.For(att.principal, att.principal == srv.local).Narrow(att.caps)
	if err := srv.checkHermetic(att.grants); err != nil {
		return nil, err
	}
	if p.HasToken() {
		att.arm()
	}
	sess, created, err := srv.sessions.get(sessionKey{att.principal, name}, func(tools *toolTable) (*eval.Interp, host.Host, error) {
		return srv.newSessionInterp(att.principal, att.grants, tools)
	}, srv.wireSession)
	if err != nil {
		var le *sessionLimitError
		if errors.As(err, &le) {
			return nil, le.rpcError()
		}
		return nil, err
	}
	if err := srv.bindPrincipal(c.conn, att.principal); err != nil {
		return nil, err
	}
	if g := sess.gate(); g != nil && !created {
		// The session may have been made by another attachment of the
		// same principal: it keeps only what both allow.
		g.narrow(att.caps)
	}
	att.sess = sess
	c.conn.attach(att)
	var refused string
	if p.HasCwd() {
		if err := sess.enter(ctx, p.Cwd); err != nil {
			refused = fitEncoded(err.Error(), MaxErrorText)
		}
	}
	res := srv.attachResult(att, name)
	res.Created = created
	res.CwdRefused = refused
	if created {
		res.Restored = sess.restored
	}
	return res, nil
}

// validateToken checks a bearer secret against the token store. Every
// failure is AUTH_FAILED; the store's reason is kept in the message, never
// the secret. A token naming the owner's principal, or any principal a
// token may not have, is refused whatever the store says.
func (s *Server) validateToken(secret string) (*auth.Token, error) {
	if s.store == nil {
		return nil, proto.NewError(proto.CodeAuthFailed, "authentication failed: this kernel has no token store", nil)
	}
	tok, err := s.store.Validate(secret)
	if err == nil && tok.Principal == s.local {
		err = auth.ErrReservedPrincipal
	}
	if err == nil {
		err = auth.CheckPrincipal(tok.Principal)
	}
	if err != nil {
		if errors.Is(err, auth.ErrStoreUnavailable) {
			s.noteStoreTrouble(err)
		}
		return nil, proto.NewError(proto.CodeAuthFailed, "authentication failed: "+err.Error(), nil)
	}
	return tok, nil
}

// noteStoreTrouble logs why the token store is refused: each new reason at
// once, the same one again at most every storeLogEvery.
func (s *Server) noteStoreTrouble(err error) {
	msg := err.Error()
	s.storeLogMu.Lock()
	defer s.storeLogMu.Unlock()
	if msg == s.storeLogMsg && time.Since(s.storeLogAt) < storeLogEvery {
		return
	}
	s.storeLogMsg, s.storeLogAt = msg, time.Now()
	s.log.Error("refusing token attaches: the token store is not usable", "store", s.store.Path(), "err", msg)
}

// attachResult is the answer of session.attach. Its caps tell the truth
// about enforcement per dimension: Enforced (and caps_enforced) is set
// when the OS confines at least one dimension of the attachment's spawned
// programs (Dimensions false: only the gate checks it).
func (s *Server) attachResult(att *attachment, name string) *proto.AttachResult {
	caps := att.caps
	if caps == nil {
		caps = []string{}
	}
	sess := att.sess
	sup := sandbox.Probe()
	var dims proto.Dimensions
	if g := sess.gate(); g != nil {
		r := g.sandboxRules()
		dims = proto.Dimensions{FS: r.RestrictFS && sup.FS, Net: r.RestrictNet && sup.Net}
	}
	enforced := dims.FS || dims.Net
	tier, available := TierNone, TierNone
	if sup.FS {
		available = TierLandlock
	}
	if enforced {
		tier = TierLandlock
	}
	dir, env := sess.snapshot()
	cwd := proto.CWD{Display: toValidUTF8(dir)}
	if !utf8.ValidString(dir) {
		cwd.Raw = base64.StdEncoding.EncodeToString([]byte(dir))
	}
	return &proto.AttachResult{
		Session:   name,
		Principal: att.principal,
		Caps: proto.Caps{
			Enforced:        enforced,
			Tier:            tier,
			AvailableTier:   available,
			Dimensions:      dims,
			PolicyPrincipal: att.principal,
			Profile:         att.profile,
			TokenCaps:       caps,
			Opaque:          string(att.grants.Opaque),
		},
		CWD:          cwd,
		EnvHash:      envHash(env),
		ASTVersion:   ASTVersion,
		CapsEnforced: enforced,
		ElideDefaults: proto.ElideDefaults{
			MaxBytes: DefaultMaxBytes, MaxRows: DefaultMaxRows, MaxItems: DefaultMaxItems,
			MaxBytesRaw: DefaultMaxBytesRaw, HardCap: HardCap,
		},
		Channels: channels,
	}
}

// The tiers attach reports: what the OS enforces for the attachment
// (tier) and what this machine could (available_tier).
const (
	TierNone     = "none"     // no OS sandbox: the gate alone
	TierLandlock = "landlock" // Linux Landlock confines spawned programs
)

// checkHermetic refuses the grants of a principal with hermetic = true
// whose restricted dimensions this machine cannot enforce: -32010 with
// data {code: "hermetic_unenforceable", dimension, reason}.
func (s *Server) checkHermetic(g *policy.Grants) error {
	if !g.Hermetic {
		return nil
	}
	r := g.Sandbox(envValue(s.cfg.Env, "HOME"))
	r.Hermetic = true
	sup := sandbox.Probe()
	for _, d := range []struct {
		name                 string
		restricted, enforced bool
	}{{"fs", r.RestrictFS, sup.FS}, {"net", r.RestrictNet, sup.Net}} {
		if d.restricted && !d.enforced {
			return proto.NewError(proto.CodeLeashDenied,
				"principal "+g.Principal+" is hermetic, but this machine cannot enforce its "+d.name+" grants: "+sup.Reason,
				map[string]any{"code": "hermetic_unenforceable", "dimension": d.name, "reason": sup.Reason})
		}
	}
	return nil
}

func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		b = utf8.AppendRune(b, r)
		s = s[n:]
	}
	return string(b)
}
