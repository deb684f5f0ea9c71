package kernel

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// explainTail is the part of an explain answer after its AST, which the
// answer's frame holds first: {"ast_version":2,"ast":AST,<tail>}.
type explainTail struct {
	Effects       []proto.Effect `json:"effects"`
	Reversibility string         `json:"reversibility"`
	Opaque        bool           `json:"opaque"`
	Notes         []string       `json:"notes,omitempty"`
	// PlanRef is the fingerprint again, under the name the seed gives
	// explain's answer: a description, never a stored plan's ref
	// (plan.get answers UNKNOWN_PLAN for it).
	PlanRef     string `json:"plan_ref"`
	Fingerprint string `json:"fingerprint"`
	proto.ExplainVerdict
}

// handleExplain derives, without running anything, what a source would do
// in the caller's session: its canonical AST, effects, reversibility and
// opacity, a descriptive fingerprint, "fp:…", given as both fingerprint
// and plan_ref, and the verdict the session's grants give the plan now
// (sessionDecision, what exec's leash check acts on). Nothing is stored,
// no approval is asked and no journal row is written: the fingerprint is not a
// stored plan's ref and plan.get never resolves it (exec mode "plan"
// stores a plan). "src"
// wins over "ast"; an "ast" alone is decoded from its ast_version 2 JSON,
// under the bounds a parse keeps (syntax.MaxDepth, syntax.MaxNodes).
func handleExplain(ctx context.Context, c *call) (any, error) {
	var p proto.ExplainParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Src == nil && (len(p.AST) == 0 || string(p.AST) == "null") {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "src" or "ast" is required`, nil)
	}
	le := sessionLeashEnv(c.att.sess)
	var answer answerFrame
	var err error
	if werr := c.withSource(ctx, func(ps *syntax.Parser) { answer, err = explainAnswer(ps, c.req, p, le, c.att.sess) }); werr != nil {
		return nil, werr
	}
	if err != nil || answer == nil {
		return nil, err
	}
	return answer, nil
}

// explainAnswer parses (with ps) or decodes the program, derives its plan
// and writes the answer frame for req (nil for a notification).
func explainAnswer(ps *syntax.Parser, req *proto.Request, p proto.ExplainParams, le leash.Env, sess *session) (answerFrame, error) {
	var prog *syntax.Program
	var src string
	if p.Src != nil {
		// The tree is dropped once the answer is written (plans hold
		// strings, never nodes), so a keeping parser serves.
		parsed, err := ps.Parse(*p.Src, syntax.ParseOptions{IsBound: le.IsBound})
		if err != nil {
			return nil, parseError(err)
		}
		prog, src = parsed, *p.Src
	} else {
		decoded, err := syntax.UnmarshalProgram(p.AST)
		if err != nil {
			return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "ast" is not a valid ast_version 2 program`, err.Error())
		}
		prog = decoded
	}
	plan := leash.Derive(prog, le)
	if req.IsNotification() {
		return nil, nil
	}
	d := sessionDecision(sess, plan)
	tail := explainTail{Effects: wireEffects(plan.Effects), Reversibility: plan.Reversibility, Opaque: plan.Opaque, Notes: plan.Notes,
		ExplainVerdict: proto.ExplainVerdict{Verdict: string(d.Verdict), Reasons: d.Reasons}}
	if tail.Effects == nil {
		tail.Effects = []proto.Effect{}
	}
	return buildAnswer(req, astSizeHint(src)+len(p.AST), func(b []byte, limit int) ([]byte, error) {
		b = append(b, astResultHead...)
		at := len(b)
		b, err := appendAST(b, prog, src, limit-1)
		if err != nil {
			return b, err
		}
		if p.Src == nil {
			// The canonical AST stands in for the source in the
			// fingerprint.
			src = string(b[at:])
		}
		tail.Fingerprint = leash.Fingerprint(plan, src)
		tail.PlanRef = tail.Fingerprint
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as every other answer is written
		if err := enc.Encode(tail); err != nil {
			return b, err
		}
		rest := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if len(b)+len(rest) > limit {
			return b, astTooLarge(src)
		}
		b = append(b, ',')
		return append(b, rest[1:]...), nil // rest's own '{' dropped, its '}' closes the result
	})
}
