//go:build linux

package hostile

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/proto"
)

// Plan attack bounds, stated once.
const (
	plansSession   = 8         // --session-plans in these tests
	plansPrincipal = 16        // --principal-plans
	plansToken     = 48        // --token-plans
	plansMemory    = 4 << 20   // --plan-memory
	plansMemCap    = 2 << 30   // RLIMIT_AS of the kernel
	plansRSS       = 256 << 20 // peak RSS the kernel may reach
)

var hostilePlanRef = regexp.MustCompile(`^plan:[0-9a-f]{32}$`)

// storeHostilePlan asks for a stored plan of src; it returns the ref or
// the refusal.
func storeHostilePlan(t *testing.T, c *client.Client, src string) (string, error) {
	var a struct {
		PlanRef string `json:"plan_ref"`
	}
	ctx, cancel := attachCtx(t)
	defer cancel()
	err := c.Call(ctx, "exec", map[string]any{"src": src, "mode": "plan"}, &a)
	if err == nil && !hostilePlanRef.MatchString(a.PlanRef) {
		t.Fatalf("plan ref %q", a.PlanRef)
	}
	return a.PlanRef, err
}

// TestHostilePlanFlood: a token principal storing ten times each plan
// bound (per session, per principal, for all token principals together,
// and in bytes) gets a typed refusal for every plan past it; the kernel
// stays up, its RSS small, the owner's heartbeat is served throughout,
// and the owner, counted apart, still stores plans.
func TestHostilePlanFlood(t *testing.T) {
	k := Start(t, Options{MemCap: plansMemCap, Flags: []string{
		"--session-plans", fmt.Sprint(plansSession), "--principal-plans", fmt.Sprint(plansPrincipal),
		"--token-plans", fmt.Sprint(plansToken), "--plan-memory", fmt.Sprint(plansMemory),
	}})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:evil")
	evil := k.Attach(t, "e0", tok)

	// One session: its bound, then ten times it refused.
	for i := 0; i < 10*plansSession; i++ {
		_, err := storeHostilePlan(t, evil, fmt.Sprintf("rm -r /tmp/x%d", i))
		switch {
		case err == nil && i < plansSession:
		case err != nil && i >= plansSession:
			wantRefusal(t, err, "session_plans", plansSession)
		default:
			t.Fatalf("plan %d in one session: %v", i, err)
		}
	}

	// Its other sessions: the principal's bound, then refused.
	stored := plansSession
	refused := 0
	for s := 1; s < 10*plansPrincipal/plansSession; s++ {
		c := k.Attach(t, fmt.Sprintf("e%d", s), tok)
		for i := 0; i < plansSession; i++ {
			_, err := storeHostilePlan(t, c, "1 + 1")
			if err == nil {
				stored++
				continue
			}
			wantRefusal(t, err, "principal_plans", plansPrincipal)
			refused++
		}
	}
	if stored != plansPrincipal || refused < 9*plansPrincipal-plansSession {
		t.Errorf("agent:evil stored %d plans (want %d), %d refused", stored, plansPrincipal, refused)
	}

	// Many principals: all token principals' bound, ten times over.
	used := plansPrincipal
	refused = 0
	for p := 0; used+refused < 10*plansToken; p++ {
		c := k.Attach(t, "s", k.Token(t, fmt.Sprintf("agent:swarm%d", p)))
		for i := 0; i < plansSession; i++ {
			_, err := storeHostilePlan(t, c, "2 + 2")
			if err == nil {
				used++
				continue
			}
			wantRefusal(t, err, "token_plans", plansToken)
			refused++
		}
	}
	if used != plansToken || refused < 9*plansToken {
		t.Errorf("token plans stored %d (want %d), refused %d", used, plansToken, refused)
	}

	// The owner's room is untouched.
	owner := k.Owner(t)
	for i := 0; i < plansSession; i++ {
		if _, err := storeHostilePlan(t, owner, "ls ."); err != nil {
			t.Fatalf("owner plan %d while token plans are full: %v", i, err)
		}
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, plansRSS)
}

// TestHostilePlanBytes: large sources fill the bytes bound long before
// the count bounds; ten times its worth is refused, typed, and the kernel
// keeps serving the owner.
func TestHostilePlanBytes(t *testing.T) {
	const srcSize = 512 << 10
	k := Start(t, Options{MemCap: plansMemCap, Flags: []string{"--plan-memory", fmt.Sprint(plansMemory)}})
	hb := k.Heartbeat(t)
	big := "# " + strings.Repeat("x", srcSize) + "\n1"
	fits := 0
	refused := 0
	for p := 0; fits+refused < 10*plansMemory/srcSize; p++ {
		c := k.Attach(t, "b", k.Token(t, fmt.Sprintf("agent:big%d", p)))
		for i := 0; i < 4; i++ {
			_, err := storeHostilePlan(t, c, big)
			if err == nil {
				fits++
				continue
			}
			wantRefusal(t, err, "plan_memory", plansMemory)
			refused++
		}
	}
	if fits == 0 || fits >= plansMemory/srcSize || refused < 9*plansMemory/srcSize {
		t.Errorf("%d large plans stored, %d refused", fits, refused)
	}
	if _, err := storeHostilePlan(t, k.Owner(t), big); err != nil {
		t.Errorf("the owner's large plan: %v", err)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, plansRSS)
}

// TestHostileLanguagePlans: the programs `plan` keeps in a session (for
// `apply`) are bounded in source bytes (eval.MaxStoredPlanBytes): a token
// principal storing ten times that many bytes of plans is served while the
// store keeps at most the bound (the oldest are dropped), one plan ten times the bound is refused
// (RAISED quota_exceeded naming the budget), and the kernel stays up and
// small while the owner's heartbeat is served.
func TestHostileLanguagePlans(t *testing.T) {
	const bound = eval.MaxStoredPlanBytes
	k := Start(t, Options{MemCap: plansMemCap})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "lp", k.Token(t, "agent:lp"))
	ctx, cancel := attachCtx(t)
	defer cancel()
	piece := `plan { echo "` + strings.Repeat("x", bound/4) + `" }`
	for i := 0; i < 40; i++ { // 10x the bound in total
		if err := c.Call(ctx, "exec", map[string]any{"src": piece}, nil); err != nil {
			t.Fatalf("plan %d: %v", i, err)
		}
	}
	// (That the oldest were dropped is eval's TestStoredPlanBytesAreBounded:
	// apply is opaque, which this principal's empty policy denies.)
	var d struct {
		Code string `json:"code"`
	}
	huge := `plan { echo "` + strings.Repeat("x", 10*bound) + `" }`
	err := c.Call(ctx, "exec", map[string]any{"src": huge}, nil)
	if code, _ := client.ErrorCode(err); code != proto.CodeRaised {
		t.Fatalf("a plan ten times the bound: %v, want RAISED", err)
	}
	if client.ErrorData(err, &d); d.Code != "quota_exceeded" || !strings.Contains(err.Error(), eval.BudgetStoredPlans) {
		t.Errorf("a plan ten times the bound: %v (code %q), want quota_exceeded naming %s", err, d.Code, eval.BudgetStoredPlans)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, plansRSS)
}
