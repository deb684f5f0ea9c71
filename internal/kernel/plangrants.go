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

// grantsJudge is a planJudge over policy grants.
type grantsJudge struct{ g *policy.Grants }

func (j grantsJudge) decide(p *leash.Plan) (string, []string) {
	d := j.g.Decide(p)
	return string(d.Verdict), d.Reasons
}

func (j grantsJudge) canApprove() bool     { return j.g.CanApprove() }
func (j grantsJudge) canSelfApprove() bool { return j.g.CanSelfApprove() }

// judge returns the grants of the attachment a as plans use them: its
// principal's in the kernel's policy, narrowed by its token's caps.
func (s *Server) judge(a *attachment) planJudge {
	return grantsJudge{s.grantsOf(a)}
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
