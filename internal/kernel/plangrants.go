package kernel

import (
	"github.com/shoalgo/shoal/internal/leash"
)

// planJudge is what plans and approval ask of a caller's grants: a
// verdict on a derived plan, with a reason for each effect not simply
// allowed, and whether the caller may approve plans (its own too).
type planJudge interface {
	decide(p *leash.Plan) (verdict string, reasons []string)
	canApprove() bool
	canSelfApprove() bool
}

// judge returns the grants of the attachment a as plans use them.
//
// Until policy is wired into attachments, these are the kernel's default
// policy: the owner's local principal may do everything without
// approval and approves others' plans (not its own); every other principal
// is denied every effect, pure evaluation allowed.
func (s *Server) judge(a *attachment) planJudge {
	return defaultJudge{owner: a.principal == s.local}
}

// judgeOf is judge for a principal attached somewhere (the audience of
// approval events).
func (s *Server) judgeOf(principal string) planJudge {
	return defaultJudge{owner: principal == s.local}
}

type defaultJudge struct{ owner bool }

func (j defaultJudge) decide(p *leash.Plan) (string, []string) {
	if j.owner || (len(p.Effects) == 0 && !p.Opaque) {
		return VerdictAllow, nil
	}
	return VerdictDeny, []string{"no policy grants this principal any effect"}
}

func (j defaultJudge) canApprove() bool     { return j.owner }
func (j defaultJudge) canSelfApprove() bool { return false }
