package kernel

import (
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/policy"
)

// planJudge is what plans and approval ask of a caller's grants: a
// verdict on a derived plan, with a reason for each effect not simply
// allowed, and whether the caller may approve plans (its own too).
type planJudge interface {
	decide(p *leash.Plan) (verdict string, reasons []string)
	canApprove() bool
	canSelfApprove() bool
}

// grantsJudge is a planJudge over policy grants: g says who may
// approve, verdicts judges plans.
type grantsJudge struct{ g, verdicts *policy.Grants }

func (j grantsJudge) decide(p *leash.Plan) (string, []string) {
	d := j.verdicts.Decide(p)
	return string(d.Verdict), d.Reasons
}

func (j grantsJudge) canApprove() bool     { return j.g.CanApprove() }
func (j grantsJudge) canSelfApprove() bool { return j.g.CanSelfApprove() }

// judge returns the grants of the attachment a as plans use them: its
// principal's in the kernel's policy, narrowed by its token's caps. Who
// may approve is the attachment's; verdicts are the session gate's (which
// every attachment of the session has narrowed, so a plan is judged by
// the grants it will run under).
func (s *Server) judge(a *attachment) planJudge {
	g := s.grantsOf(a)
	j := grantsJudge{g: g, verdicts: g}
	if sg := a.sess.gate(); sg != nil {
		j.verdicts = sg.current().grants
	}
	return j
}

// grantsOf is the one place plans read an attachment's grants: those
// fixed at attach (its principal's, narrowed by its token's caps).
func (s *Server) grantsOf(a *attachment) *policy.Grants {
	if a.grants != nil {
		return a.grants
	}
	return s.planPolicy().For(a.principal, a.principal == s.local).Narrow(a.caps)
}

// planPolicy is the kernel's policy as plans see it.
func (s *Server) planPolicy() *policy.Policy {
	return s.policy
}
