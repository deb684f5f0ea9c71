package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/proto"
)

// foreignMsg is the whole answer to a plan request by anyone but the owner.
const foreignMsg = "leash denied: not the owner of this plan"

var planRefRE = regexp.MustCompile(`^plan:[0-9a-f]{32}$`)

// planKernel starts a kernel with the policy doc (TOML; "" for the
// default policy), where DIR in doc stands for the kernel's working
// directory, and adjusted limits.
func planKernel(t *testing.T, doc string, adjust func(*kernel.Limits)) *e2eKernel {
	t.Helper()
	sock, dir, store := e2eDirs(t)
	cfg := kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}}
	if doc != "" {
		pol, err := policy.Parse([]byte(regexp.MustCompile(`DIR`).ReplaceAllLiteralString(doc, dir)), filepath.Dir(dir))
		if err != nil {
			t.Fatalf("policy: %v", err)
		}
		cfg.Policy = pol
	}
	if adjust != nil {
		lim := kernel.DefaultLimits()
		adjust(&lim)
		cfg.Limits = &lim
	}
	return serveConfigE2E(t, sock, dir, store, cfg)
}

// serveConfigE2E is serveE2E with a whole Config.
func serveConfigE2E(t *testing.T, sock, dir, store string, cfg kernel.Config) *e2eKernel {
	t.Helper()
	l, err := kernel.Listen(sock, true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := &e2eKernel{sock: sock, dir: dir, store: store, srv: srv, done: make(chan error, 1)}
	go func() { k.done <- srv.Serve(l) }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

// workerPolicy: agent:worker may read the working directory, and every
// plan of its with effects needs approval; agent:lead approves (not its
// own plans); agent:boss approves its own too.
const workerPolicy = `
[principal."agent:worker"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"

[principal."agent:lead"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"
approve = true

[principal."agent:boss"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"
approve = true
self_approve = true
`

type planAnswer struct {
	PlanRef         string            `json:"plan_ref"`
	Effects         []json.RawMessage `json:"effects"`
	Reversibility   string            `json:"reversibility"`
	Opaque          bool              `json:"opaque"`
	Verdict         string            `json:"verdict"`
	Reasons         []string          `json:"reasons"`
	State           string            `json:"state"`
	ApprovalPending bool              `json:"approval_pending"`
}

type planGet struct {
	PlanRef         string            `json:"plan_ref"`
	Session         string            `json:"session"`
	Principal       string            `json:"principal"`
	Src             string            `json:"src"`
	AST             json.RawMessage   `json:"ast"`
	Effects         []json.RawMessage `json:"effects"`
	Verdict         string            `json:"verdict"`
	State           string            `json:"state"`
	ApprovalPending bool              `json:"approval_pending"`
	Approved        bool              `json:"approved"`
}

type capAnswer struct {
	PlanRef         string   `json:"plan_ref"`
	State           string   `json:"state"`
	Approved        bool     `json:"approved"`
	ApprovalPending bool     `json:"approval_pending"`
	Uncovered       []string `json:"uncovered"`
}

type approvalPayload struct {
	PlanRef   string            `json:"plan_ref"`
	Principal string            `json:"principal"`
	Session   string            `json:"session"`
	Effects   []json.RawMessage `json:"effects"`
	State     string            `json:"state"`
	Approver  string            `json:"approver"`
}

func storePlan(t *testing.T, c *client.Client, src string) planAnswer {
	t.Helper()
	var a planAnswer
	if err := c.Call(testCtx(t), "exec", map[string]any{"src": src, "mode": "plan"}, &a); err != nil {
		t.Fatalf("plan %q: %v", src, err)
	}
	if !planRefRE.MatchString(a.PlanRef) {
		t.Fatalf("plan ref %q is not plan:<32 hex>", a.PlanRef)
	}
	return a
}

func getPlan(t *testing.T, c *client.Client, ref string) planGet {
	t.Helper()
	var g planGet
	if err := c.Call(testCtx(t), "plan.get", map[string]any{"plan_ref": ref}, &g); err != nil {
		t.Fatalf("plan.get %s: %v", ref, err)
	}
	return g
}

func listPlans(t *testing.T, c *client.Client) []string {
	t.Helper()
	var res struct {
		Plans []struct {
			PlanRef string `json:"plan_ref"`
		} `json:"plans"`
	}
	if err := c.Call(testCtx(t), "plan.list", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range res.Plans {
		out = append(out, p.PlanRef)
	}
	return out
}

func capRequest(c *client.Client, t *testing.T, params map[string]any) (capAnswer, error) {
	var a capAnswer
	err := c.Call(testCtx(t), "cap.request", params, &a)
	return a, err
}

func approvalEvent(t *testing.T, s *client.Subscription) approvalPayload {
	t.Helper()
	ev := next(t, s, 10*time.Second)
	var p approvalPayload
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatalf("approval payload %s: %v", ev.Payload, err)
	}
	return p
}

// Two sources with identical effects get two plan refs; neither disturbs
// the other: each keeps its own source and applies on its own.
func TestE2EPlanRefsAreDistinct(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "plans", "")
	if err := os.WriteFile(filepath.Join(k.dir, "f.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := storePlan(t, c, "ls .")
	b := storePlan(t, c, "ls ./")
	same := storePlan(t, c, "ls .")
	if a.PlanRef == b.PlanRef || a.PlanRef == same.PlanRef || b.PlanRef == same.PlanRef {
		t.Fatalf("refs collide: %s %s %s", a.PlanRef, b.PlanRef, same.PlanRef)
	}
	if fmt.Sprint(a.Effects) != fmt.Sprint(b.Effects) || len(a.Effects) == 0 {
		t.Fatalf("effects differ or are empty: %s / %s", a.Effects, b.Effects)
	}
	if a.Verdict != "allow" || a.State != "allowed" || a.ApprovalPending {
		t.Errorf("owner's plan = %+v, want allow, allowed, nothing pending", a)
	}
	if got := listPlans(t, c); !slices.Equal(got, []string{a.PlanRef, b.PlanRef, same.PlanRef}) {
		t.Errorf("plan.list = %v", got)
	}
	if g := getPlan(t, c, b.PlanRef); g.Src != "ls ./" || len(g.AST) < 10 || g.Verdict != "allow" || g.Session != "plans" {
		t.Errorf("plan.get b = %+v", g)
	}
	// Applying a runs its source once; b and same are untouched.
	var res client.ExecResult
	if err := c.Call(testCtx(t), "plan.apply", map[string]any{"plan_ref": a.PlanRef}, &res); err != nil {
		t.Fatalf("apply a: %v", err)
	}
	if res.Ref == "" || !regexp.MustCompile(`f\.txt`).MatchString(res.Render) {
		t.Errorf("apply answered %+v, want ls's table", res)
	}
	wantCode(t, "second apply", c.Call(testCtx(t), "plan.apply", map[string]any{"plan_ref": a.PlanRef}, nil), proto.CodeUnknownPlan)
	if g := getPlan(t, c, same.PlanRef); g.Src != "ls ." || g.State != "allowed" {
		t.Errorf("plan.get same after applying a = %+v", g)
	}
	if got := listPlans(t, c); !slices.Equal(got, []string{b.PlanRef, same.PlanRef}) {
		t.Errorf("plan.list after apply = %v", got)
	}
	// exec approved with the identical source consumes one such plan.
	if err := c.Call(testCtx(t), "exec", map[string]any{"src": "ls ./", "mode": "approved"}, &res); err != nil {
		t.Fatalf("approved exec: %v", err)
	}
	wantCode(t, "approved exec again", c.Call(testCtx(t), "exec", map[string]any{"src": "ls ./", "mode": "approved"}, nil), proto.CodeLeashDenied)
	wantCode(t, "approved exec, changed source", c.Call(testCtx(t), "exec", map[string]any{"src": "ls  .", "mode": "approved"}, nil), proto.CodeLeashDenied)
	// A named plan must have exactly the source sent.
	wantCode(t, "approved exec naming another source's plan",
		c.Call(testCtx(t), "exec", map[string]any{"src": "ls ./", "mode": "approved", "plan_ref": same.PlanRef}, nil), proto.CodeLeashDenied)
	if err := c.Call(testCtx(t), "exec", map[string]any{"src": "ls .", "mode": "approved", "plan_ref": same.PlanRef}, &res); err != nil {
		t.Fatalf("approved exec naming its plan: %v", err)
	}
	if got := listPlans(t, c); len(got) != 0 {
		t.Errorf("plan.list at the end = %v", got)
	}
	// The Go client reads a stored plan's answer as one.
	pr, err := c.Exec(testCtx(t), client.ExecParams{Src: "ls .", Mode: client.ModePlan})
	if err != nil || !pr.IsPlan() || pr.State != "allowed" || pr.Verdict != "allow" || len(pr.Effects) < 3 {
		t.Errorf("client plan = %+v, %v", pr, err)
	}
	if _, err := c.Exec(testCtx(t), client.ExecParams{Src: "ls .", Mode: client.ModeApproved}); err != nil {
		t.Errorf("client approved exec: %v", err)
	}
	// An explain fingerprint is never a stored plan.
	var ex struct {
		PlanRef string `json:"plan_ref"`
	}
	if err := c.Call(testCtx(t), "explain", map[string]any{"src": "ls ."}, &ex); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "plan.get of a fingerprint", c.Call(testCtx(t), "plan.get", map[string]any{"plan_ref": ex.PlanRef}, nil), proto.CodeUnknownPlan)
}

// Fifty plans stored at once, from several connections of one session,
// the same source for all: fifty refs, fifty records, none overwritten.
func TestE2EPlanConcurrentCreation(t *testing.T) {
	const n = 50
	k := newE2E(t)
	conns := make([]*client.Client, 5)
	for i := range conns {
		conns[i] = k.attached(t, "many", "")
	}
	refs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a planAnswer
			errs[i] = conns[i%len(conns)].Call(testCtx(t), "exec", map[string]any{"src": "ls .", "mode": "plan"}, &a)
			refs[i] = a.PlanRef
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, ref := range refs {
		if errs[i] != nil || !planRefRE.MatchString(ref) || seen[ref] {
			t.Fatalf("plan %d: ref %q, err %v (seen before: %v)", i, ref, errs[i], seen[ref])
		}
		seen[ref] = true
	}
	listed := listPlans(t, conns[0])
	if len(listed) != n {
		t.Fatalf("plan.list holds %d plans, want %d", len(listed), n)
	}
	for _, ref := range listed {
		if !seen[ref] {
			t.Errorf("plan.list has %s, never answered", ref)
		}
		if g := getPlan(t, conns[1], ref); g.Src != "ls ." || g.State != "allowed" {
			t.Errorf("plan.get %s = %+v", ref, g)
		}
	}
}

// The approval flow: an agent's plan needs approval; the approval event
// reaches the agent's session and the approver and no one else; only the
// owner gets or applies; a non-approver, the agent itself, and an approver
// naming too few effects do not approve it; the approver does.
func TestE2EApprovalFlow(t *testing.T) {
	k := planKernel(t, workerPolicy, nil)
	if err := os.WriteFile(filepath.Join(k.dir, "f.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	unattached := k.dial(t)
	wantCode(t, "unattached cap.request", unattached.Call(ctx, "cap.request", map[string]any{"plan_ref": "plan:0"}, nil), proto.CodeNotAttached)

	workerTok := k.token(t, "agent:worker")
	worker := k.attached(t, "w", workerTok)
	workerElsewhere := k.attached(t, "w2", workerTok)
	other := k.attached(t, "w", k.token(t, "agent:other"))
	owner := k.attached(t, "main", "")
	lead := k.attached(t, "l", k.token(t, "agent:lead"))
	subs := map[string]*client.Subscription{}
	for name, c := range map[string]*client.Client{"worker": worker, "owner": owner, "lead": lead} {
		s, err := c.Subscribe(ctx, "approval", 0)
		if err != nil {
			t.Fatal(err)
		}
		subs[name] = s
	}

	p := storePlan(t, worker, "ls .")
	if p.Verdict != "approval_required" || p.State != "pending" || !p.ApprovalPending {
		t.Fatalf("worker's plan = %+v, want approval_required and pending", p)
	}
	for name, s := range subs {
		ev := approvalEvent(t, s)
		if ev.PlanRef != p.PlanRef || ev.State != "pending" || ev.Principal != "agent:worker" || ev.Session != "w" || len(ev.Effects) == 0 {
			t.Errorf("%s's pending event = %+v", name, ev)
		}
	}
	for name, c := range map[string]*client.Client{"other principal": other, "worker's other session": workerElsewhere} {
		evs, err := c.EventsRead(ctx, "approval", 0, 100)
		if err != nil || len(evs) != 0 {
			t.Errorf("%s reads approval events %v, %v; want none", name, evs, err)
		}
		for _, m := range []string{"plan.get", "plan.apply"} {
			err := c.Call(ctx, m, map[string]any{"plan_ref": p.PlanRef}, nil)
			wantCode(t, name+" "+m, err, proto.CodeLeashDenied)
			var re *proto.RPCError
			if errors.As(err, &re) && (re.Data != nil || re.Message != foreignMsg) {
				t.Errorf("%s %s answers %q with data %v; want only %q", name, m, re.Message, re.Data, foreignMsg)
			}
		}
		if got := listPlans(t, c); len(got) != 0 {
			t.Errorf("%s lists %v", name, got)
		}
	}
	// The owner's own gets and applies of a plan it does not own.
	wantCode(t, "approver plan.get", owner.Call(ctx, "plan.get", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeLeashDenied)

	wantCode(t, "apply before approval", worker.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeApprovalRequired)
	wantCode(t, "approved exec before approval", worker.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "approved"}, nil), proto.CodeLeashDenied)
	wantCode(t, "approved exec naming the pending plan",
		worker.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "approved", "plan_ref": p.PlanRef}, nil), proto.CodeLeashDenied)
	wantCode(t, "approved exec naming an unknown plan",
		worker.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "approved", "plan_ref": "plan:0123"}, nil), proto.CodeLeashDenied)
	_, err := capRequest(other, t, map[string]any{"plan_ref": p.PlanRef})
	wantCode(t, "non-approver cap.request", err, proto.CodeLeashDenied)
	_, err = capRequest(worker, t, map[string]any{"plan_ref": p.PlanRef})
	wantCode(t, "worker approving its own plan", err, proto.CodeLeashDenied)
	_, err = capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef, "effects": []any{"fs.bogus"}})
	wantCode(t, "unknown effect kind", err, proto.CodeInvalidParams)

	// Too few effects: still pending, the rest listed, nothing published.
	a, err := capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef, "effects": []any{"fs.write", map[string]any{"kind": "proc_spawn"}}})
	if err != nil || a.Approved || !a.ApprovalPending || a.State != "pending" || !slices.Contains(a.Uncovered, "fs_read") {
		t.Fatalf("partial cap.request = %+v, %v", a, err)
	}
	if g := getPlan(t, worker, p.PlanRef); g.State != "pending" || g.Approved {
		t.Errorf("plan after a partial request = %+v", g)
	}

	// The lead approves it, naming its effects.
	a, err = capRequest(lead, t, map[string]any{"plan_ref": p.PlanRef, "effects": []any{"fs.read"}})
	if err != nil || !a.Approved || a.ApprovalPending || a.State != "approved" {
		t.Fatalf("cap.request = %+v, %v", a, err)
	}
	for name, s := range subs {
		ev := approvalEvent(t, s)
		if ev.PlanRef != p.PlanRef || ev.State != "approved" || ev.Approver != "agent:lead" {
			t.Errorf("%s's approved event = %+v", name, ev)
		}
	}
	if g := getPlan(t, worker, p.PlanRef); g.State != "approved" || !g.Approved || g.ApprovalPending {
		t.Errorf("plan after approval = %+v", g)
	}
	wantCode(t, "approved exec, changed source", worker.Call(ctx, "exec", map[string]any{"src": "ls ./", "mode": "approved"}, nil), proto.CodeLeashDenied)
	wantCode(t, "foreign apply after approval", workerElsewhere.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeLeashDenied)

	// The owner applies it: the exact source runs in its session.
	var res client.ExecResult
	if wantApplied(t, "apply", worker.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, &res)) &&
		!regexp.MustCompile(`f\.txt`).MatchString(res.Render) {
		t.Errorf("apply answered %+v", res)
	}
	wantCode(t, "apply twice", worker.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeUnknownPlan)
}

// Denial: by an approver (deny: true) or by policy (a principal without
// grants); neither can run, and policy denial cannot be approved.
func TestE2EPlanDenied(t *testing.T) {
	k := planKernel(t, workerPolicy, nil)
	ctx := testCtx(t)
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	owner := k.attached(t, "main", "")
	sub, err := worker.Subscribe(ctx, "approval", 0)
	if err != nil {
		t.Fatal(err)
	}
	p := storePlan(t, worker, "ls .")
	approvalEvent(t, sub) // pending
	// An approver attaching later still reads the pending event; a
	// principal that is no approver does not.
	lateLead := k.attached(t, "late", k.token(t, "agent:lead"))
	evs, err := lateLead.EventsRead(ctx, "approval", 0, 10)
	if err != nil || len(evs) != 1 || !regexp.MustCompile(p.PlanRef).Match(evs[0].Payload) {
		t.Errorf("late approver reads %v, %v; want the pending event", evs, err)
	}
	lateOther := k.attached(t, "late", k.token(t, "agent:nobody-else"))
	if evs, err := lateOther.EventsRead(ctx, "approval", 0, 10); err != nil || len(evs) != 0 {
		t.Errorf("a late non-approver reads %v, %v", evs, err)
	}
	a, err := capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef, "deny": true})
	if err != nil || a.State != "denied" || a.Approved {
		t.Fatalf("deny = %+v, %v", a, err)
	}
	if ev := approvalEvent(t, sub); ev.State != "denied" || ev.PlanRef != p.PlanRef {
		t.Errorf("denied event = %+v", ev)
	}
	wantCode(t, "apply denied", worker.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeLeashDenied)
	_, err = capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef})
	wantCode(t, "approving a denied plan", err, proto.CodeLeashDenied)

	nobody := k.attached(t, "n", k.token(t, "agent:nobody"))
	d := storePlan(t, nobody, "ls .")
	if d.Verdict != "deny" || d.State != "denied" || d.ApprovalPending || len(d.Reasons) == 0 {
		t.Fatalf("plan of a principal without policy = %+v", d)
	}
	if g := getPlan(t, nobody, d.PlanRef); g.Verdict != "deny" || g.State != "denied" {
		t.Errorf("plan.get of a denied plan = %+v", g)
	}
	_, err = capRequest(owner, t, map[string]any{"plan_ref": d.PlanRef})
	wantCode(t, "approving a policy-denied plan", err, proto.CodeLeashDenied)
	wantCode(t, "apply policy-denied", nobody.Call(ctx, "plan.apply", map[string]any{"plan_ref": d.PlanRef}, nil), proto.CodeLeashDenied)
	// Pure evaluation is always allowed, so its plan needs nothing.
	if pure := storePlan(t, nobody, "1 + 2"); pure.Verdict != "allow" || pure.State != "allowed" {
		t.Errorf("pure plan = %+v", pure)
	}
}

// Self-approval is refused by default (the kernel owner and agent:lead
// are approvers without self_approve) and allowed with self_approve.
func TestE2ESelfApproval(t *testing.T) {
	k := planKernel(t, workerPolicy, nil)
	ctx := testCtx(t)
	lead := k.attached(t, "l", k.token(t, "agent:lead"))
	p := storePlan(t, lead, "ls .")
	if p.State != "pending" {
		t.Fatalf("lead's plan = %+v", p)
	}
	_, err := capRequest(lead, t, map[string]any{"plan_ref": p.PlanRef})
	wantCode(t, "lead approving its own plan", err, proto.CodeLeashDenied)
	leadElsewhere := k.attached(t, "l2", k.token(t, "agent:lead"))
	_, err = capRequest(leadElsewhere, t, map[string]any{"plan_ref": p.PlanRef})
	wantCode(t, "lead approving its own plan from another session", err, proto.CodeLeashDenied)

	boss := k.attached(t, "b", k.token(t, "agent:boss"))
	bp := storePlan(t, boss, "ls .")
	a, err := capRequest(boss, t, map[string]any{"plan_ref": bp.PlanRef})
	if err != nil || a.State != "approved" {
		t.Fatalf("boss approving its own plan (self_approve) = %+v, %v", a, err)
	}
	wantApplied(t, "boss applying its approved plan", boss.Call(ctx, "plan.apply", map[string]any{"plan_ref": bp.PlanRef}, nil))

	// The kernel owner under a policy giving it auto_apply "never" is an
	// approver without self_approve: its own plans wait for another.
	owner := k.srv.LocalPrincipal()
	k2 := planKernel(t, fmt.Sprintf("[principal.%q]\nfs.read = [\"DIR\", \"DIR/**\"]\nauto_apply = \"never\"\napprove = true\n", owner), nil)
	o := k2.attached(t, "main", "")
	op := storePlan(t, o, "ls .")
	if op.State != "pending" {
		t.Fatalf("owner's plan under auto_apply never = %+v", op)
	}
	_, err = capRequest(o, t, map[string]any{"plan_ref": op.PlanRef})
	wantCode(t, "owner approving its own plan", err, proto.CodeLeashDenied)
}

// A session that changed since a plan was stored cannot widen it: apply
// re-derives the plan and refuses other effects, keeping the plan.
func TestE2EPlanApplyRederives(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "s", "")
	ctx := testCtx(t)
	if _, err := c.Exec(ctx, client.ExecParams{Src: "fn look() { ls . }"}); err != nil {
		t.Fatal(err)
	}
	p := storePlan(t, c, "look")
	if _, err := c.Exec(ctx, client.ExecParams{Src: "fn look() { rm ./gone.txt }"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "apply after the function changed", c.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeLeashDenied)
	if g := getPlan(t, c, p.PlanRef); g.State != "allowed" {
		t.Errorf("plan after a refused apply = %+v", g)
	}
	if _, err := c.Exec(ctx, client.ExecParams{Src: "fn look() { ls . }"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil); err != nil {
		t.Errorf("apply once the function is back: %v", err)
	}
}

// Plans are bounded per session and per principal (typed refusals, nothing
// stored), and expire after the TTL with an expired approval event.
func TestE2EPlanBoundsAndExpiry(t *testing.T) {
	k := planKernel(t, workerPolicy, func(l *kernel.Limits) {
		l.SessionPlans, l.PrincipalPlans, l.PlanTTL = 3, 5, 2*time.Second
	})
	ctx := testCtx(t)
	tok := k.token(t, "agent:worker")
	w1 := k.attached(t, "w1", tok)
	sub, err := w1.Subscribe(ctx, "approval", 0)
	if err != nil {
		t.Fatal(err)
	}
	first := storePlan(t, w1, "ls .")
	for range 2 {
		storePlan(t, w1, "1")
	}
	for range 3 {
		wantQuota(t, w1.Call(ctx, "exec", map[string]any{"src": "1", "mode": "plan"}, nil), "session_plans", 3)
	}
	w2 := k.attached(t, "w2", tok)
	storePlan(t, w2, "1")
	storePlan(t, w2, "2")
	wantQuota(t, w2.Call(ctx, "exec", map[string]any{"src": "1", "mode": "plan"}, nil), "principal_plans", 5)
	if n := len(listPlans(t, w1)); n != 3 {
		t.Errorf("w1 lists %d plans, want 3", n)
	}
	if ev := approvalEvent(t, sub); ev.State != "pending" || ev.PlanRef != first.PlanRef {
		t.Fatalf("pending event = %+v", ev)
	}
	if ev := approvalEvent(t, sub); ev.State != "expired" || ev.PlanRef != first.PlanRef {
		t.Fatalf("expiry event = %+v", ev)
	}
	wantCode(t, "plan.get after expiry", w1.Call(ctx, "plan.get", map[string]any{"plan_ref": first.PlanRef}, nil), proto.CodeUnknownPlan)
	deadline := time.Now().Add(10 * time.Second)
	for len(listPlans(t, w1)) != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(listPlans(t, w1)); n != 0 {
		t.Errorf("%d plans left after expiry", n)
	}
	storePlan(t, w1, "1") // room again
}

// wantApplied checks that an apply ran, and reports whether it did.
func wantApplied(t *testing.T, what string, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v; want the run", what, err)
		return false
	}
	return true
}

// wantQuota checks a refusal by a plan bound.
func wantQuota(t *testing.T, err error, budget string, limit int) {
	t.Helper()
	wantCode(t, "past "+budget, err, proto.CodeLeashDenied)
	var d struct {
		Code   string `json:"code"`
		Budget string `json:"budget"`
		Limit  int    `json:"limit"`
	}
	if derr := client.ErrorData(err, &d); derr != nil || d.Code != "quota_exceeded" || d.Budget != budget || d.Limit != limit {
		t.Errorf("refusal data %+v (%v), want quota_exceeded %s %d", d, derr, budget, limit)
	}
}

// A plan.apply waiting for its session's turn is a foreground task: it is
// listed and task.cancel stops it, before its plan is consumed.
func TestE2EPlanApplyWaitsAsTask(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	busy := k.attached(t, "q", "")
	applier := k.attached(t, "q", "")
	watcher := k.attached(t, "q", "")
	p := storePlan(t, applier, "1 + 1")
	loopDone := make(chan error, 1)
	go func() {
		_, err := busy.Exec(context.Background(), client.ExecParams{Src: "while true { }"})
		loopDone <- err
	}()
	loop := foregroundTask(t, watcher)
	applied := make(chan error, 1)
	go func() {
		applied <- applier.Call(context.Background(), "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil)
	}()
	var waiting string
	for deadline := time.Now().Add(5 * time.Second); waiting == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var list struct {
			Tasks []fgRec `json:"tasks"`
		}
		if err := watcher.Call(ctx, "task.list", nil, &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Tasks {
			if r.Foreground && r.State == "running" && r.Task != loop.Task {
				waiting = r.Task
			}
		}
	}
	if waiting == "" {
		t.Fatal("the waiting plan.apply is not in task.list")
	}
	if err := watcher.Call(ctx, "task.cancel", map[string]string{"task": waiting}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-applied:
		if err == nil {
			t.Fatal("a cancelled plan.apply answered success")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled plan.apply did not answer")
	}
	if err := watcher.Call(ctx, "task.cancel", map[string]string{"task": loop.Task}, nil); err != nil {
		t.Fatal(err)
	}
	<-loopDone
	// Cancelled before its turn, it consumed nothing: the plan still applies.
	var res client.ExecResult
	if err := applier.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, &res); err != nil || res.Render != "2" {
		t.Errorf("apply after the cancelled one = %+v, %v", res, err)
	}
}
