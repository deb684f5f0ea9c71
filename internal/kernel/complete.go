package kernel

import (
	"context"
	"io/fs"
	"strings"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// MaxCompleteSrc bounds the source a complete request may carry.
const MaxCompleteSrc = 1 << 20

// handleComplete offers completions at a cursor (a UTF-8 byte offset,
// default the end, clamped). Before attach it knows only the language:
// builtins, keywords, namespaces and methods. After attach it also offers
// the session's names, functions and aliases, environment names, and paths
// listed through the session's host gate.
func handleComplete(ctx context.Context, c *call) (any, error) {
	var p proto.CompleteParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Src == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "src" is required`, nil)
	}
	if len(*p.Src) > MaxCompleteSrc {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: src exceeds 1 MiB", nil)
	}
	cursor := len(*p.Src)
	if p.Cursor != nil {
		if err := checkSafeInt("cursor", int64(*p.Cursor)); err != nil {
			return nil, err
		}
		cursor = *p.Cursor
	}
	cctx := languageContext(c.conn.srv.registry)
	if c.att != nil {
		sessionContext(ctx, &cctx, c.att.sess)
	}
	cands := complete.Complete(*p.Src, cursor, cctx)
	out := make([]proto.Candidate, len(cands))
	for i, k := range cands {
		out[i] = proto.Candidate{Label: k.Label, Kind: k.Kind, Detail: k.Detail,
			Replace: proto.Span{Start: int(k.Replace.Start), End: int(k.Replace.End)}}
	}
	return &proto.CompleteResult{Candidates: out}, nil
}

// languageContext is what completion knows without a session.
func languageContext(r *eval.Registry) complete.Context {
	return complete.Context{
		Builtins:   r.BuiltinNames,
		Methods:    r.MethodNames,
		Namespaces: r.NamespaceNames,
		Members:    r.NamespaceMembers,
	}
}

// sessionContext adds what the session knows: its latest binding snapshot
// (never the live evaluator, which an exec may be using), its environment
// names, and directory listings through its host gate.
func sessionContext(ctx context.Context, cc *complete.Context, sess *session) {
	view := sess.view()
	dir, env := sess.snapshot()
	cc.Names = func() []string { return view.values }
	cc.Commands = func() []string { return view.commands }
	cc.KindOf = func(name string) (value.Kind, bool) {
		k, ok := view.kinds[name]
		return k, ok
	}
	cc.Fields = func(name string) []string { return view.fields[name] }
	cc.Subcommands = sess.interp.Adapters().Subcommands // the catalog is immutable and shared
	cc.EnvNames = func() []string { return complete.EnvNames(env) }
	cc.Dir = dir
	cc.Home = envValue(env, "HOME")
	cc.ReadDir = func(d string) ([]fs.DirEntry, error) { return sess.host.ReadDir(ctx, d) }
}

// envValue returns the value of name in env, "" when unset.
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
