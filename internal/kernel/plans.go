package kernel

import (
	"context"

	"github.com/shoalgo/shoal/proto"
)

// This kernel stores no plans yet (exec mode "plan" is refused), so every
// plan ref is unknown, explain's fingerprints included.

type planRefParams struct {
	PlanRef *string `json:"plan_ref"`
}

// handlePlanRef answers plan.get and plan.apply: UNKNOWN_PLAN for any ref.
func handlePlanRef(_ context.Context, c *call) (any, error) {
	var p planRefParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.PlanRef == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "plan_ref" is required`, nil)
	}
	return nil, proto.NewError(proto.CodeUnknownPlan, "unknown plan "+quoteRef(*p.PlanRef), nil)
}

// handlePlanList lists the caller's stored plans: none.
func handlePlanList(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	return map[string]any{"plans": []any{}}, nil
}
