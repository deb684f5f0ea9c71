package kernel

import (
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

type explainParams struct {
	Src *string         `json:"src"`
	AST json.RawMessage `json:"ast"`
}

type explainResult struct {
	ASTVersion    int             `json:"ast_version"`
	AST           json.RawMessage `json:"ast"`
	Effects       []leash.Effect  `json:"effects"`
	Reversibility string          `json:"reversibility"`
	Opaque        bool            `json:"opaque"`
	Notes         []string        `json:"notes,omitempty"`
	Fingerprint   string          `json:"fingerprint"`
}

// handleExplain derives, without running anything, what a source would do
// in the caller's session: its canonical AST, effects, reversibility and
// opacity, and a descriptive fingerprint. Nothing is stored: the
// fingerprint is not a plan ref and plan.get does not resolve it. "src"
// wins over "ast"; an "ast" alone is decoded from its ast_version 2 JSON.
func handleExplain(_ context.Context, c *call) (any, error) {
	var p explainParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	sess := c.att.sess
	view := sess.view()
	var prog *syntax.Program
	var src string
	if p.Src != nil {
		// The tree is dropped once the plan is derived (plans hold strings,
		// never nodes), so a keeping parser serves.
		ps := getParser()
		defer putParser(ps)
		parsed, err := ps.Parse(*p.Src, syntax.ParseOptions{IsBound: view.isBound})
		if err != nil {
			return nil, parseError(err)
		}
		prog, src = parsed, *p.Src
	} else {
		if len(p.AST) == 0 || string(p.AST) == "null" {
			return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "src" or "ast" is required`, nil)
		}
		decoded, err := syntax.UnmarshalProgram(p.AST)
		if err != nil {
			return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "ast" is not a valid ast_version 2 program`, err.Error())
		}
		prog = decoded
	}
	ast, err := syntax.MarshalProgram(prog)
	if err != nil {
		return nil, err
	}
	if p.Src == nil {
		// The canonical AST stands in for the source in the fingerprint.
		src = string(ast)
	}
	dir, env := sess.snapshot()
	plan := leash.Derive(prog, leash.Env{
		Dir:     dir,
		Home:    envValue(env, "HOME"),
		Trash:   eval.TrashRoot(env),
		IsBound: view.isBound,
		TypeOf:  view.typeOf,
		Function: func(name string) (*syntax.FnDecl, bool) {
			d, ok := view.fns[name]
			return d, ok
		},
		Alias: func(name string) (*syntax.CmdCall, bool) {
			a, ok := view.aliases[name]
			return a, ok
		},
	})
	effects := plan.Effects
	if effects == nil {
		effects = []leash.Effect{}
	}
	return &explainResult{
		ASTVersion:    ASTVersion,
		AST:           ast,
		Effects:       effects,
		Reversibility: plan.Reversibility,
		Opaque:        plan.Opaque,
		Notes:         plan.Notes,
		Fingerprint:   leash.Fingerprint(plan, src),
	}, nil
}
