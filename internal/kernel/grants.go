package kernel

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// Leash in the kernel. Every attachment gets its grants once, at attach:
// the policy's grants of its principal, narrowed by its token's caps. A
// session (one per principal and name) has a gate built from the grants of
// the attachments it has served: its Host asks the gate about every
// concrete effect while a program runs (functions, closures, `with`,
// tasks, handlers and interpreter blocks included, since they all run on
// the session's Host), and every process it spawns runs under the OS
// sandbox lowered from the same grants. exec "run" judges the derived plan
// against the gate's grants before anything runs (exec.go, leashCheck).
//
// A session's grants only ever narrow: an attachment whose token caps
// narrow its principal's grants narrows the session's gate to what both
// allow, for as long as the session lives, so an attachment cannot use a
// session another attachment of the same principal made to do more than
// its own token allows, not even through a task that outlives its exec.

// sessionGate is a session's runtime gate: a host.Authorizer and the
// sandbox rules of its spawns, both from the session's current grants.
type sessionGate struct {
	home string // for ~ in the grants' sandbox roots
	// selfPids, when set (every session but the kernel owner's), names
	// the processes no op may reach through /proc whatever the grants:
	// the gate then refuses them first (host.GuardSelf; selfguard.go).
	selfPids func() []int
	state    atomic.Pointer[gateState]
}

// gateState is one immutable version of a gate.
type gateState struct {
	grants *policy.Grants
	authz  host.Authorizer
	rules  sandbox.Rules
	// free is set when the grants allow every effect and auto-apply what
	// they allow: exec derives no plan, the gate asks nothing and nothing
	// is sandboxed (the kernel owner by default).
	free bool
}

func newSessionGate(g *policy.Grants, home string, selfPids func() []int) *sessionGate {
	sg := &sessionGate{home: home, selfPids: selfPids}
	sg.state.Store(sg.build(g))
	return sg
}

func (sg *sessionGate) build(g *policy.Grants) *gateState {
	st := &gateState{grants: g, free: g.AllowsEveryPlan()}
	if st.free {
		st.authz = host.AllowAll
	} else {
		st.authz = g.Authorizer()
		st.rules = g.Sandbox(sg.home)
	}
	if sg.selfPids != nil {
		st.authz = host.GuardSelf(st.authz, sg.selfPids)
	}
	return st
}

// Authorize implements host.Authorizer with the current grants.
func (sg *sessionGate) Authorize(ctx context.Context, op host.Op) error {
	return sg.state.Load().authz.Authorize(ctx, op)
}

// sandboxRules are the rules the session's spawns run under now.
// Unrestricted implements host.Unrestricted: while the session's grants
// allow every op, its host resolves no paths and opens no held
// descriptors (the owner's fast path).
func (sg *sessionGate) Unrestricted() bool { return sg.state.Load().authz == host.AllowAll }

func (sg *sessionGate) sandboxRules() sandbox.Rules { return sg.state.Load().rules }

// current is the gate's current version.
func (sg *sessionGate) current() *gateState { return sg.state.Load() }

// narrow makes the gate's grants what they are and caps allows (no caps:
// unchanged, as policy.Grants.Narrow).
func (sg *sessionGate) narrow(caps []string) {
	if len(caps) == 0 {
		return
	}
	for {
		old := sg.state.Load()
		next := sg.build(old.grants.Narrow(caps))
		if sg.state.CompareAndSwap(old, next) {
			return
		}
	}
}

// sessionEnv is the environment a session of grants g starts from: the
// variables of env its env_read grants let it read. The others are
// withheld: neither the session's code nor any program it runs sees them;
// their names are returned sorted, for session.env.
func sessionEnv(g *policy.Grants, env []string, free bool) (kept []string, withheld []string) {
	if free {
		return env, nil
	}
	kept = []string{}
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if g.Allows(host.EnvRead, k) {
			kept = append(kept, kv)
		} else {
			withheld = append(withheld, k)
		}
	}
	slices.Sort(withheld)
	return kept, slices.Compact(withheld)
}

// leashCheck judges an exec "run" before anything runs: once its turn
// comes (tr, unless the caller holds it already: nil), so that it sees
// what the execs before it bound, it parses the source,
// derives its plan and asks the session's grants. A plan they deny is
// -32010 LEASH_DENIED, one that needs approval -32011 APPROVAL_REQUIRED,
// each with data {verdict, effects, reasons}, and nothing runs; an
// allowed one runs as the very program judged (p.prog). Pure evaluation
// is always allowed. Grants that allow everything skip all of it (the
// kernel owner by default). Whatever the verdict, the gate still checks
// every concrete effect while the program runs.
func leashCheck(ctx context.Context, sess *session, p *execParams, tr *turn) error {
	g := sess.gate()
	if g == nil || g.current().free {
		return nil
	}
	if tr != nil {
		if err := tr.wait(ctx); err != nil {
			return proto.NewError(proto.CodeInternalError, "exec abandoned before it started: "+err.Error(), nil)
		}
	}
	le := sessionLeashEnv(sess)
	prog, err := syntax.Parse(p.Src, syntax.ParseOptions{IsBound: le.IsBound})
	if err != nil {
		return parseError(err)
	}
	plan := leash.Derive(prog, le)
	p.plan = plan
	d := sessionDecision(sess, plan)
	if d.Verdict == policy.Allow {
		p.prog = prog
		return nil
	}
	// The data of an exec refused by policy (-32010) or held for approval
	// (-32011).
	data := proto.VerdictData{Verdict: string(d.Verdict), Effects: wireEffects(plan.Effects), Reasons: d.Reasons}
	if data.Effects == nil {
		data.Effects = []proto.Effect{}
	}
	if data.Reasons == nil {
		data.Reasons = []string{}
	}
	code, msg := proto.CodeLeashDenied, "denied by policy"
	if d.Verdict == policy.ApprovalRequired {
		code, msg = proto.CodeApprovalRequired, "approval required"
	}
	if len(d.Reasons) > 0 {
		msg += ": " + strings.Join(d.Reasons, "; ")
	}
	return proto.NewError(code, fitEncoded(msg, MaxErrorText), data)
}

// sessionDecision is the one verdict the session's grants give a derived
// plan: what exec's leash check acts on and what explain reports. Grants
// that allow everything (or no gate) allow it.
func sessionDecision(sess *session, plan *leash.Plan) policy.Decision {
	g := sess.gate()
	if g == nil {
		return policy.Decision{Verdict: policy.Allow}
	}
	st := g.current()
	if st.free {
		return policy.Decision{Verdict: policy.Allow}
	}
	return st.grants.Decide(plan)
}
