package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// Stored plans and approval (see docs/kernel.md, "Plans and approval").
//
// exec with mode "plan" derives a source's plan in the caller's session,
// judges it with the session's grants and stores it under a random ref
// bound to the caller's principal, session and exact source. Plans whose
// verdict is deny are stored too, so their owner can read the reasons
// with plan.get; they can never be approved or applied. A plan needing
// approval publishes a pending event on the approval channel; an approver
// decides it with cap.request; its owner runs it once with plan.apply, or
// with exec mode "approved" and the identical source. Only the owner
// (principal and session) may read, list or apply a plan: anyone else
// gets LEASH_DENIED with one fixed message, whatever the plan holds.

// MaxPlanSource bounds the source one stored plan keeps; a longer source
// is INVALID_PARAMS in mode "plan".
const MaxPlanSource = 1 << 20

// MaxPlanListSrc bounds the source each plan.list entry carries; longer
// source is cut at a UTF-8 boundary and the entry says src_truncated.
const MaxPlanListSrc = 256

// MaxApprovalEffects bounds the effects an approval event lists; past it
// the event says effects_truncated (plan.get has them all).
const MaxApprovalEffects = 64

// foreignPlanMsg is the whole answer to a plan request by anyone but the
// plan's owner.
const foreignPlanMsg = "leash denied: not the owner of this plan"

// planErr maps a store error to its wire form.
func planErr(err error, ref string) error {
	var be *planBoundError
	var gone *planGoneError
	switch {
	case errors.As(err, &be):
		return quotaDenied(be.Error(), be.budget, be.limit)
	case errors.As(err, &gone):
		return proto.NewError(proto.CodeUnknownPlan, "unknown plan "+quoteRef(ref)+": "+goneText[gone.state]+"; it can never run",
			&proto.PlanGone{PlanRef: ref, State: gone.state})
	case errors.Is(err, errUnknownPlan):
		return proto.NewError(proto.CodeUnknownPlan, "unknown plan "+quoteRef(ref)+" (never stored, expired, or already applied)", nil)
	case errors.Is(err, errForeignPlan):
		return proto.NewError(proto.CodeLeashDenied, foreignPlanMsg, nil)
	case errors.Is(err, errPlanDenied):
		return proto.NewError(proto.CodeLeashDenied, "leash denied: plan "+quoteRef(ref)+" is denied and can never run", nil)
	case errors.Is(err, errPlanPending):
		return proto.NewError(proto.CodeApprovalRequired, "approval required: plan "+quoteRef(ref)+" awaits an approver's cap.request", nil)
	}
	return proto.NewError(proto.CodeInternalError, "plan: "+err.Error(), nil)
}

// goneText says why a plan that can no longer run cannot, by the state it
// ended in.
var goneText = map[string]string{
	PlanApplied: "it was applied",
	PlanExpired: "it expired unapplied",
	PlanDenied:  "it was denied, and its time is up",
}

// derivePlan parses src in sess and derives its plan. A source that does
// not parse is PARSE_ERROR.
func derivePlan(sess *session, src string) (*leash.Plan, *syntax.Program, error) {
	le := sessionLeashEnv(sess)
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: le.IsBound})
	if err != nil {
		return nil, nil, parseError(err)
	}
	p := leash.Derive(prog, le)
	if p.Effects == nil {
		p.Effects = []leash.Effect{}
	}
	return p, prog, nil
}

// samePlan reports whether two derived plans say exactly the same: the
// same effects in the same order, every field of each (a field leash adds
// later included), reversibility and opacity. Compared whole, not by a
// digest.
func samePlan(a, b *leash.Plan) bool {
	return a.Reversibility == b.Reversibility && a.Opaque == b.Opaque && reflect.DeepEqual(a.Effects, b.Effects)
}

// sameStoredPlan is samePlan for a plan read back from the journal: its
// effects came through JSON, which does not tell an empty list from none,
// so when the two differ only that way they are the same (their JSON is).
func sameStoredPlan(derived, stored *leash.Plan) bool {
	if samePlan(derived, stored) {
		return true
	}
	if derived.Reversibility != stored.Reversibility || derived.Opaque != stored.Opaque {
		return false
	}
	a, err1 := json.Marshal(derived.Effects)
	b, err2 := json.Marshal(stored.Effects)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

// execPlan answers exec in mode "plan": it waits for the session's turn
// (so it sees the bindings of the execs before it), derives and judges
// the plan and stores it. Nothing runs.
func (c *call) execPlan(ctx context.Context, p *execParams) (any, error) {
	tr := c.turn
	defer tr.leave()
	if len(p.Src) > MaxPlanSource {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: a plan's source is at most 1 MiB", nil)
	}
	if err := tr.wait(ctx); err != nil {
		return nil, proto.NewError(proto.CodeInternalError, "plan abandoned before it started: "+err.Error(), nil)
	}
	srv, att := c.conn.srv, c.att
	plan, _, err := derivePlan(att.sess, p.Src)
	if err != nil {
		return nil, err
	}
	verdict, reasons := srv.judge(att).decide(plan)
	rec := &planRecord{
		owner:   att.sess.key,
		token:   att.principal != srv.local,
		src:     strings.Clone(p.Src),
		plan:    plan,
		verdict: verdict,
		reasons: reasons,
	}
	switch verdict {
	case VerdictAllow:
		rec.state = PlanAllowed
	case VerdictApprovalRequired:
		rec.state = PlanPending
	default:
		rec.state = PlanDenied
	}
	state := rec.state // an approver may decide it as soon as it is stored
	if err := srv.plans.add(rec); err != nil {
		return nil, planErr(err, "")
	}
	if state == PlanPending {
		srv.publishApproval(rec, PlanPending, "")
	}
	return &proto.PlanAnswer{
		PlanRef: rec.ref, Effects: wireEffects(plan.Effects), Reversibility: plan.Reversibility, Opaque: plan.Opaque,
		Verdict: verdict, Reasons: reasons, State: state, ApprovalPending: state == PlanPending, Notes: plan.Notes,
	}, nil
}

func (c *call) planRef() (string, error) {
	var p proto.PlanRefParams
	if err := c.params(&p); err != nil {
		return "", err
	}
	if p.PlanRef == nil {
		return "", proto.NewError(proto.CodeInvalidParams, `invalid params: "plan_ref" is required`, nil)
	}
	return *p.PlanRef, nil
}

// handlePlanGet answers plan.get for the plan's owner: the stored source
// and effects, the AST of the source parsed again, and the verdict the
// caller's grants give it now. The effects are the stored ones (what an
// approver saw); apply checks that the source still derives them.
func handlePlanGet(_ context.Context, c *call) (any, error) {
	ref, err := c.planRef()
	if err != nil {
		return nil, err
	}
	srv, att := c.conn.srv, c.att
	snap, err := srv.plans.get(ref, att.sess.key)
	if err != nil {
		var gone *planGoneError
		if errors.As(err, &gone) && gone.state == PlanApplied {
			// The contract's plan.get states include applied: the owner
			// reads it off the tombstone, which keeps no source or effects.
			return &proto.PlanRecord{PlanRef: ref, Session: att.sess.key.name, Principal: att.sess.key.principal,
				AST: json.RawMessage("null"), Effects: []proto.Effect{}, State: PlanApplied,
				Notes: []string{"applied: its source and effects are no longer kept with the plan; journal.query has the run"}}, nil
		}
		return nil, planErr(err, ref)
	}
	res := &proto.PlanRecord{
		PlanRef: snap.ref, Session: snap.owner.name, Principal: snap.owner.principal, Src: snap.src,
		ASTVersion: ASTVersion, AST: json.RawMessage("null"),
		Effects: wireEffects(snap.plan.Effects), Reversibility: snap.plan.Reversibility, Opaque: snap.plan.Opaque, Notes: snap.plan.Notes,
		StoredVerdict: snap.Verdict, State: snap.State, ApprovalPending: snap.State == PlanPending,
		Approved: snap.State == PlanApproved, Approver: snap.Approver, Uncovered: snap.Uncovered,
		CreatedNS: snap.created.UnixNano(), ExpiresNS: snap.expires.UnixNano(),
	}
	le := sessionLeashEnv(att.sess)
	if prog, perr := syntax.Parse(snap.src, syntax.ParseOptions{IsBound: le.IsBound}); perr == nil {
		if b, aerr := syntax.AppendProgram(nil, prog, proto.MaxFrame/2); aerr == nil {
			res.AST = b
		}
		res.Verdict, res.Reasons = srv.judge(att).decide(leash.Derive(prog, le))
	} else {
		res.Verdict, res.Reasons = VerdictDeny, []string{"the stored source no longer parses in this session"}
	}
	return res, nil
}

// handlePlanList lists the plans of the caller's principal and session,
// oldest first (at most Limits.SessionPlans of them).
func handlePlanList(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	snaps := c.conn.srv.plans.list(c.att.sess.key)
	out := make([]proto.PlanSummary, 0, len(snaps))
	for _, s := range snaps {
		src, cut := s.src, false
		if len(src) > MaxPlanListSrc {
			src, cut = truncateUTF8(src, MaxPlanListSrc), true
		}
		out = append(out, proto.PlanSummary{
			PlanRef: s.ref, Src: src, SrcTruncated: cut, Effects: len(s.plan.Effects), Reversibility: s.plan.Reversibility,
			Verdict: s.Verdict, State: s.State, ApprovalPending: s.State == PlanPending, Approved: s.State == PlanApproved,
			CreatedNS: s.created.UnixNano(), ExpiresNS: s.expires.UnixNano(),
		})
	}
	return &proto.PlanList{Plans: out}, nil
}

// authorizeApproved checks, on the session's turn, that the caller may
// run p's source as an approved exec, and consumes the plan that lets it
// (the program judged is the one that runs, p.prog): the plan ref when one
// is given, else the caller's oldest approved (or allowed) plan of
// identical source. The source must still derive the stored effects in
// the session as it is now, and the session's grants must not deny them
// now. For plan.apply (apply) the refusals are UNKNOWN_PLAN (not live),
// LEASH_DENIED (another's, changed effects, denied) and APPROVAL_REQUIRED
// (still pending); for exec mode "approved" every refusal is LEASH_DENIED,
// as the contract pins: no stored, approved plan matches.
func (c *call) authorizeApproved(ctx context.Context, p *execParams, apply bool) error {
	err := c.approvedPlan(ctx, p)
	if err == nil || apply {
		return err
	}
	var re *proto.RPCError
	if errors.As(err, &re) && (re.Code == proto.CodeUnknownPlan || re.Code == proto.CodeApprovalRequired) {
		return proto.NewError(proto.CodeLeashDenied, "leash denied: no stored, approved plan of this session matches: "+re.Message, nil)
	}
	return err
}

func (c *call) approvedPlan(ctx context.Context, p *execParams) error {
	src, ref := p.Src, p.PlanRef
	if err := c.turn.wait(ctx); err != nil {
		return proto.NewError(proto.CodeInternalError, "exec abandoned before it started: "+err.Error(), nil)
	}
	srv, att := c.conn.srv, c.att
	key := att.sess.key
	var snap planSnapshot
	if p.HasPlanRef() {
		s, err := srv.plans.get(ref, key)
		if err != nil {
			return planErr(err, ref)
		}
		if s.src != src {
			return proto.NewError(proto.CodeLeashDenied, "leash denied: the source differs from plan "+quoteRef(ref)+"'s", nil)
		}
		snap = s
	} else {
		s, ok := srv.plans.findApproved(key, src)
		if !ok {
			return proto.NewError(proto.CodeLeashDenied, "leash denied: no stored, approved plan of this session has this exact source", nil)
		}
		snap = s
	}
	plan, prog, err := derivePlan(att.sess, src)
	if err != nil {
		return err
	}
	if same := samePlan(plan, snap.plan) || (snap.restored && sameStoredPlan(plan, snap.plan)); !same {
		return proto.NewError(proto.CodeLeashDenied,
			"leash denied: the source no longer derives the effects plan "+quoteRef(snap.ref)+" stored (the session changed); plan it again", nil)
	}
	verdict, _ := srv.judge(att).decide(plan)
	if verdict == VerdictDeny {
		return planErr(errPlanDenied, snap.ref)
	}
	if _, err := srv.plans.consume(snap.ref, key, verdict); err != nil {
		return planErr(err, snap.ref)
	}
	p.prog, p.plan = prog, plan
	return nil
}

// handlePlanApply runs the caller's plan: its exact stored source, as an
// approved exec in the plan's session (the caller's), answering what exec
// answers. A plan applies once; it is gone afterwards.
func handlePlanApply(ctx context.Context, c *call) (any, error) {
	ref, err := c.planRef()
	if err != nil {
		c.turn.leave()
		return nil, err
	}
	snap, err := c.conn.srv.plans.get(ref, c.att.sess.key)
	if err != nil {
		c.turn.leave()
		return nil, planErr(err, ref)
	}
	src := snap.src
	p := &execParams{ExecParams: proto.ExecParams{Mode: proto.ModeApproved}}
	p.SetSrc(src)
	p.SetPlanRef(ref)
	// Authorized in its foreground task once its turn comes, so task.list
	// shows it and task.cancel stops it while it waits.
	p.approve = func(ctx context.Context) error { return c.authorizeApproved(ctx, p, true) }
	return c.runSync(ctx, p)
}

// effectKinds is the wire vocabulary of effect kinds cap.request accepts
// (proto.EffectKinds) as a set.
var effectKinds = func() map[string]bool {
	m := make(map[string]bool, len(proto.EffectKinds))
	for _, k := range proto.EffectKinds {
		m[k] = true
	}
	return m
}()

// normaliseKind turns "fs.write", "FS_WRITE" or "fs_write" into fs_write.
func normaliseKind(k string) (string, bool) {
	k = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(k), ".", "_"))
	return k, effectKinds[k]
}

// coveredKinds decodes cap.request's effects: strings or {kind} objects.
// nil means none were given (everything is covered).
func coveredKinds(raw []json.RawMessage) (map[string]bool, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if len(raw) > len(effectKinds)*4 {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: too many effects", nil)
	}
	out := map[string]bool{}
	for _, r := range raw {
		var name string
		if err := json.Unmarshal(r, &name); err != nil {
			var obj struct {
				Kind *string `json:"kind"`
			}
			if err := json.Unmarshal(r, &obj); err != nil || obj.Kind == nil {
				return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: each effect is a kind string or {"kind": …}`, nil)
			}
			name = *obj.Kind
		}
		k, ok := normaliseKind(name)
		if !ok {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: unknown effect kind "+quoteRef(name), nil)
		}
		out[k] = true
	}
	return out, nil
}

// handleCapRequest is an approver's decision on a plan: approve it (when
// effects are given, only if they cover every effect kind of the plan;
// otherwise it stays pending and the answer lists the kinds left
// uncovered), or deny it. The caller must be an approver (LEASH_DENIED
// otherwise, before the ref is even looked up), and not the plan's
// principal unless it may approve its own plans; a plan policy denies
// cannot be approved. A decision is published on the approval channel.
func handleCapRequest(_ context.Context, c *call) (any, error) {
	var p proto.CapRequestParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.PlanRef == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "plan_ref" is required`, nil)
	}
	covered, err := coveredKinds(p.Effects)
	if err != nil {
		return nil, err
	}
	ref := *p.PlanRef
	srv, att := c.conn.srv, c.att
	j := srv.judge(att)
	if !j.canApprove() {
		return nil, proto.NewError(proto.CodeLeashDenied, "leash denied: "+att.principal+" is not an approver", nil)
	}
	snap, err := srv.plans.peek(ref)
	if err != nil {
		return nil, planErr(err, ref)
	}
	if snap.owner.principal == att.principal && !j.canSelfApprove() {
		return nil, proto.NewError(proto.CodeLeashDenied, "leash denied: an approver may not decide its own plan (self_approve is not set)", nil)
	}
	after, changed, err := srv.plans.decide(ref, att.principal, p.Deny, covered)
	if err != nil {
		return nil, planErr(err, ref)
	}
	if changed {
		srv.publishApproval(after.planRecord, after.State, att.principal)
	}
	return &proto.CapRequestResult{
		PlanRef: ref, State: after.State, Approved: after.State == PlanApproved || after.State == PlanAllowed,
		ApprovalPending: after.State == PlanPending, Uncovered: after.Uncovered,
	}, nil
}

// publishApproval publishes rec's state on the approval channel, to its
// owner's session and every approver attached now (and the kernel owner
// when it approves).
func (s *Server) publishApproval(rec *planRecord, state, approver string) {
	ev := proto.ApprovalEvent{
		PlanRef: rec.ref, Principal: rec.owner.principal, Session: rec.owner.name,
		Effects: wireEffects(rec.plan.Effects), Reversibility: rec.plan.Reversibility, Verdict: rec.verdict, State: state, Approver: approver,
	}
	if len(ev.Effects) > MaxApprovalEffects {
		ev.Effects, ev.EffectsTruncated = ev.Effects[:MaxApprovalEffects], true
	}
	b, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("dropping unencodable approval event", "err", err)
		return
	}
	scope := events.Scope{Principal: rec.owner.principal, Session: rec.owner.name}
	if _, err := s.bus.PublishTo(scope, events.ChannelApproval, s.approvalAudience(scope), b); err != nil {
		s.log.Warn("dropping approval event", "plan", rec.ref, "err", err)
	}
}

// approvalAudience is who sees an approval event of the plan owner's
// scope: that session, and every principal that may approve: the kernel
// owner's when its grants say so, every principal the policy makes an
// approver (so one attaching later still reads the pending events), and
// each attached now whose grants say so.
func (s *Server) approvalAudience(owner events.Scope) events.Audience {
	aud := events.Audience{Scopes: []events.Scope{owner}}
	seen := map[string]bool{}
	add := func(principal string, can bool) {
		if can && !seen[principal] {
			seen[principal] = true
			aud.Principals = append(aud.Principals, principal)
		}
	}
	for _, p := range s.policyApprovers() {
		add(p, true)
	}
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		if a := c.attachment(); a != nil && !seen[a.principal] {
			add(a.principal, s.judge(a).canApprove())
		}
	}
	return aud
}

// policyApprovers lists, once, the principals the policy lets approve:
// the kernel owner's (by default) and each entry with approve = true.
func (s *Server) policyApprovers() []string {
	s.approversOnce.Do(func() {
		pol := s.planPolicy()
		if pol.For(s.local, true).CanApprove() {
			s.approvers = append(s.approvers, s.local)
		}
		for _, name := range pol.Principals() {
			if name != s.local && pol.For(name, false).CanApprove() {
				s.approvers = append(s.approvers, name)
			}
		}
	})
	return s.approvers
}

// plansExpired publishes an expired event for each dropped plan that was
// waiting on, or holding, an approval.
func (s *Server) plansExpired(recs []*planRecord) {
	for _, rec := range recs {
		if rec.verdict == VerdictApprovalRequired {
			s.publishApproval(rec, PlanExpired, "")
		}
	}
}

// wireEffects is a plan's effects as the wire carries them (nil stays nil).
func wireEffects(effects []leash.Effect) []proto.Effect {
	if effects == nil {
		return nil
	}
	out := make([]proto.Effect, len(effects))
	for i, e := range effects {
		out[i] = proto.Effect{Kind: string(e.Kind), Path: e.Path, Program: e.Program, Argv: e.Argv, Name: e.Name, Dynamic: e.Dynamic}
	}
	return out
}
