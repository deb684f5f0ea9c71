package client

import "github.com/shoalgo/shoal/proto"

// PlanGoneState reports the state a plan ended in when err is the
// UNKNOWN_PLAN answer about a plan that can no longer run ("applied",
// "expired", or "denied" past its time); ok is false for any other error
// and for a ref the kernel knows nothing of.
func PlanGoneState(err error) (state string, ok bool) {
	if code, isRPC := ErrorCode(err); !isRPC || code != proto.CodeUnknownPlan {
		return "", false
	}
	var g proto.PlanGone
	if ErrorData(err, &g) != nil || g.State == "" {
		return "", false
	}
	return g.State, true
}
