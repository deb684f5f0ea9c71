package kernel_test

import (
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
)

// Without a state directory too, a plan that can no longer run says why:
// UNKNOWN_PLAN with data.state "applied" after its apply and "expired"
// after its time (never "denied"), read with the client's PlanGoneState;
// a ref never stored has no state.
func TestE2EPlanGoneState(t *testing.T) {
	k := planKernel(t, workerPolicy, func(l *kernel.Limits) { l.PlanTTL = time.Second })
	ctx := testCtx(t)
	w := k.attached(t, "w", k.token(t, "agent:worker"))
	owner := k.attached(t, "main", "")
	pending := storePlan(t, w, "ls .")
	allowed := storePlan(t, owner, "1 + 1")
	if _, err := owner.PlanApply(ctx, allowed.PlanRef); err != nil {
		t.Fatal(err)
	}
	_, err := owner.PlanApply(ctx, allowed.PlanRef)
	if st, ok := client.PlanGoneState(err); !ok || st != "applied" {
		t.Errorf("second apply: %v (state %q)", err, st)
	}
	if got, err := owner.PlanGet(ctx, allowed.PlanRef); err != nil || got.State != "applied" {
		t.Errorf("plan.get of an applied plan: %+v, %v", got, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err = w.PlanGet(ctx, pending.PlanRef)
		if err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st, ok := client.PlanGoneState(err); !ok || st != "expired" {
		t.Errorf("plan.get of an expired plan: %v (state %q)", err, st)
	}
	_, err = w.PlanGet(ctx, "plan:00000000000000000000000000000000")
	if st, ok := client.PlanGoneState(err); ok {
		t.Errorf("a ref never stored has state %q", st)
	}
}
