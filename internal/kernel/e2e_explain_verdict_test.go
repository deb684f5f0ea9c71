package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

// TestE2EExplainVerdict: explain answers the verdict exec would act on,
// in plan mode's words, for the attached principal's grants: allow inside
// them, deny (with the reason naming the effect) outside, approval where
// auto_apply asks; nothing runs and no plan is stored. The kernel owner, whose grants are everything, gets allow.
func TestE2EExplainVerdict(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:ex", `auto_apply = "reversible"`))
	_, secret := k.token(t, "agent:ex", "explainer")
	c := k.dial(t)
	c.attach("", secret)

	explain := func(src string) proto.ExplainResult {
		t.Helper()
		var res proto.ExplainResult
		c.ok("explain", map[string]any{"src": src}, &res)
		return res
	}
	if v := explain("ls ."); v.Verdict != "allow" || len(v.Reasons) != 0 {
		t.Errorf("a read inside the grant: %+v", v.ExplainVerdict)
	}
	if v := explain("6 * 7"); v.Verdict != "allow" {
		t.Errorf("pure evaluation: %+v", v.ExplainVerdict)
	}
	outside := filepath.Join(k.base(), "out.txt")
	v := explain("touch ../out.txt")
	if v.Verdict != "deny" || len(v.Reasons) == 0 || !strings.Contains(strings.Join(v.Reasons, "\n"), "fs_write "+outside) {
		t.Errorf("a write outside the grant: %+v", v.ExplainVerdict)
	}
	// The same words exec's refusal carries.
	r := c.fail("exec", map[string]any{"src": "touch ../out.txt"}, proto.CodeLeashDenied)
	if got := verdictOf(t, r); string(got.Verdict) != v.Verdict || strings.Join(got.Reasons, "\n") != strings.Join(v.Reasons, "\n") {
		t.Errorf("exec's verdict %+v, explain's %+v", got, v.ExplainVerdict)
	}
	inside := filepath.Join(k.dir, "new.txt")
	if v := explain("touch ./new.txt"); v.Verdict != "approval_required" || len(v.Reasons) == 0 {
		t.Errorf("an irreversible write inside the grant under auto_apply reversible: %+v", v.ExplainVerdict)
	}
	if exists(outside) || exists(inside) {
		t.Fatal("explain ran something")
	}
	var plans proto.PlanList
	c.ok("plan.list", nil, &plans)
	if len(plans.Plans) != 0 {
		t.Errorf("explain stored plans: %+v", plans.Plans)
	}

	owner := k.dial(t)
	owner.attach("", "")
	var res proto.ExplainResult
	owner.ok("explain", map[string]any{"src": "touch " + filepath.Join(os.TempDir(), "never.txt")}, &res)
	if res.Verdict != "allow" {
		t.Errorf("the owner's verdict: %+v", res.ExplainVerdict)
	}
}
