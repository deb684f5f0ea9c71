package kernel

import (
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
)

// fakeClock is a settable clock for plan stores.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testStore(t *testing.T, b planBounds) (*planStore, *fakeClock, *[]*planRecord) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	var mu sync.Mutex
	expired := &[]*planRecord{}
	s := newPlanStore(b, func(recs []*planRecord) {
		mu.Lock()
		*expired = append(*expired, recs...)
		mu.Unlock()
	})
	s.now = clk.now
	t.Cleanup(s.close)
	return s, clk, expired
}

var storeBounds = planBounds{session: 4, principal: 6, token: 8, memory: 1 << 20, ttl: time.Minute}

func fsPlan(kinds ...host.Effect) *leash.Plan {
	p := &leash.Plan{Reversibility: leash.Reversible}
	for _, k := range kinds {
		p.Effects = append(p.Effects, leash.Effect{Kind: k, Path: "/w/x"})
	}
	return p
}

func rec(principal, session, src string, token bool, state string) *planRecord {
	verdict := VerdictAllow
	switch state {
	case PlanPending:
		verdict = VerdictApprovalRequired
	case PlanDenied:
		verdict = VerdictDeny
	}
	return &planRecord{owner: sessionKey{principal, session}, token: token, src: src,
		plan: fsPlan(host.FSRead, host.FSWrite), verdict: verdict, state: state}
}

func TestPlanRefs(t *testing.T) {
	re := regexp.MustCompile(`^plan:[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 10000 {
		ref, err := newPlanRef()
		if err != nil || !re.MatchString(ref) || seen[ref] {
			t.Fatalf("ref %q (err %v, seen %v)", ref, err, seen[ref])
		}
		seen[ref] = true
	}
}

// Each bound refuses with its own budget and stores nothing; the owner's
// plans (token false) are not charged to the token bounds.
func TestPlanStoreBounds(t *testing.T) {
	tests := []struct {
		name   string
		fill   []*planRecord
		next   *planRecord
		budget string
	}{
		{"session", []*planRecord{rec("a", "s", "1", true, PlanAllowed), rec("a", "s", "2", true, PlanAllowed),
			rec("a", "s", "3", true, PlanAllowed), rec("a", "s", "4", true, PlanAllowed)},
			rec("a", "s", "5", true, PlanAllowed), "session_plans"},
		{"principal", []*planRecord{rec("a", "s", "1", true, PlanAllowed), rec("a", "s", "2", true, PlanAllowed),
			rec("a", "t", "3", true, PlanAllowed), rec("a", "t", "4", true, PlanAllowed),
			rec("a", "u", "5", true, PlanAllowed), rec("a", "u", "6", true, PlanAllowed)},
			rec("a", "v", "7", true, PlanAllowed), "principal_plans"},
		{"token", []*planRecord{rec("a", "s", "1", true, PlanAllowed), rec("b", "s", "2", true, PlanAllowed),
			rec("c", "s", "3", true, PlanAllowed), rec("d", "s", "4", true, PlanAllowed),
			rec("e", "s", "5", true, PlanAllowed), rec("f", "s", "6", true, PlanAllowed),
			rec("g", "s", "7", true, PlanAllowed), rec("h", "s", "8", true, PlanAllowed)},
			rec("i", "s", "9", true, PlanAllowed), "token_plans"},
		{"memory", []*planRecord{rec("a", "s", string(make([]byte, 600<<10)), true, PlanAllowed)},
			rec("b", "s", string(make([]byte, 600<<10)), true, PlanAllowed), "plan_memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := testStore(t, storeBounds)
			for _, r := range tt.fill {
				if err := s.add(r); err != nil {
					t.Fatalf("fill: %v", err)
				}
			}
			err := s.add(tt.next)
			var be *planBoundError
			if !errors.As(err, &be) || be.budget != tt.budget {
				t.Fatalf("add past the bound: %v, want budget %s", err, tt.budget)
			}
			if s.count() != len(tt.fill) || tt.next.ref != "" {
				t.Errorf("a refused plan was stored: %d plans, ref %q", s.count(), tt.next.ref)
			}
			// The owner's plans are counted apart from token principals'.
			if tt.budget == "token_plans" || tt.budget == "plan_memory" {
				if err := s.add(rec("owner", "s", string(make([]byte, 600<<10)), false, PlanAllowed)); err != nil {
					t.Errorf("owner's plan with token bounds full: %v", err)
				}
			}
		})
	}
}

// Applying or expiring gives the bounds back.
func TestPlanStoreGivesBack(t *testing.T) {
	s, clk, expired := testStore(t, storeBounds)
	var refs []string
	for i := range 4 {
		r := rec("a", "s", string(rune('a'+i)), true, PlanAllowed)
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r.ref)
		clk.advance(time.Second)
	}
	if _, err := s.consume(refs[0], sessionKey{"a", "s"}, VerdictAllow); err != nil {
		t.Fatal(err)
	}
	if err := s.add(rec("a", "s", "e", true, PlanAllowed)); err != nil {
		t.Fatalf("after an apply: %v", err)
	}
	clk.advance(time.Minute - 2500*time.Millisecond) // now +61.5s: refs[1] (stored at +1s) is past a minute old, refs[2] not
	s.tick()
	if len(*expired) != 1 || (*expired)[0].ref != refs[1] {
		t.Fatalf("expired %v, want %s", *expired, refs[1])
	}
	if _, err := s.get(refs[1], sessionKey{"a", "s"}); !errors.Is(err, errUnknownPlan) {
		t.Errorf("expired plan: %v", err)
	}
	if err := s.add(rec("a", "s", "f", true, PlanAllowed)); err != nil {
		t.Errorf("after an expiry: %v", err)
	}
	if n := len(s.list(sessionKey{"a", "s"})); n != 4 {
		t.Errorf("list holds %d, want 4", n)
	}
}

// Only the owner session reads a plan; a foreign caller learns nothing more
// than that the ref is live.
func TestPlanStoreOwnership(t *testing.T) {
	s, _, _ := testStore(t, storeBounds)
	r := rec("a", "s", "ls", true, PlanPending)
	if err := s.add(r); err != nil {
		t.Fatal(err)
	}
	for _, caller := range []sessionKey{{"a", "t"}, {"b", "s"}} {
		if _, err := s.get(r.ref, caller); !errors.Is(err, errForeignPlan) {
			t.Errorf("get by %v: %v", caller, err)
		}
		if _, err := s.consume(r.ref, caller, VerdictAllow); !errors.Is(err, errForeignPlan) {
			t.Errorf("consume by %v: %v", caller, err)
		}
		if l := s.list(caller); len(l) != 0 {
			t.Errorf("list by %v: %v", caller, l)
		}
	}
	if _, err := s.get("plan:00000000000000000000000000000000", sessionKey{"a", "s"}); !errors.Is(err, errUnknownPlan) {
		t.Errorf("unknown ref: %v", err)
	}
}

// Decisions move a plan through its states; a policy-denied plan cannot
// be approved; a partial approval leaves it pending, listing the rest.
func TestPlanStoreDecide(t *testing.T) {
	s, _, _ := testStore(t, storeBounds)
	owner := sessionKey{"a", "s"}
	p := rec("a", "s", "cp x y", true, PlanPending)
	d := rec("a", "s", "rm x", true, PlanDenied)
	for _, r := range []*planRecord{p, d} {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.consume(p.ref, owner, VerdictApprovalRequired); !errors.Is(err, errPlanPending) {
		t.Errorf("consume pending: %v", err)
	}
	snap, changed, err := s.decide(p.ref, "lead", false, map[string]bool{"fs_read": true})
	if err != nil || changed || snap.State != PlanPending || len(snap.Uncovered) != 1 || snap.Uncovered[0] != "fs_write" {
		t.Errorf("partial approval: %+v %v %v", snap, changed, err)
	}
	snap, changed, err = s.decide(p.ref, "lead", false, map[string]bool{"fs_read": true, "fs_write": true})
	if err != nil || !changed || snap.State != PlanApproved || snap.Approver != "lead" || len(snap.Uncovered) != 0 {
		t.Errorf("approval: %+v %v %v", snap, changed, err)
	}
	if _, changed, _ := s.decide(p.ref, "lead", false, nil); changed {
		t.Error("approving twice changed the state")
	}
	if _, _, err := s.decide(d.ref, "lead", false, nil); !errors.Is(err, errPlanDenied) {
		t.Errorf("approving a denied plan: %v", err)
	}
	if _, err := s.consume(d.ref, owner, VerdictAllow); !errors.Is(err, errPlanDenied) {
		t.Errorf("consume denied: %v", err)
	}
	// An approver may still deny an approved plan before it runs.
	snap, changed, err = s.decide(p.ref, "lead", true, nil)
	if err != nil || !changed || snap.State != PlanDenied {
		t.Errorf("deny after approval: %+v %v %v", snap, changed, err)
	}
	if _, err := s.consume(p.ref, owner, VerdictAllow); !errors.Is(err, errPlanDenied) {
		t.Errorf("consume after denial: %v", err)
	}
}

// Of many concurrent applies of one plan exactly one consumes it; many
// concurrent adds never share a ref.
func TestPlanStoreConcurrency(t *testing.T) {
	s, _, _ := testStore(t, planBounds{session: 1000, principal: 1000, token: 1000, memory: 1 << 30, ttl: time.Hour})
	owner := sessionKey{"a", "s"}
	r := rec("a", "s", "ls", true, PlanApproved)
	if err := s.add(r); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	refs := map[string]bool{}
	for range 100 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := s.consume(r.ref, owner, VerdictApprovalRequired); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			n := rec("a", "s", "ls", true, PlanAllowed)
			if err := s.add(n); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			refs[n.ref] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d applies consumed the plan, want 1", won)
	}
	if len(refs) != 100 || s.count() != 100 {
		t.Errorf("%d distinct refs, %d stored; want 100", len(refs), s.count())
	}
}

// findApproved picks the oldest runnable plan of the exact source.
func TestPlanStoreFindApproved(t *testing.T) {
	s, clk, _ := testStore(t, storeBounds)
	owner := sessionKey{"a", "s"}
	pending := rec("a", "s", "ls", true, PlanPending)
	first := rec("a", "s", "ls", true, PlanApproved)
	second := rec("a", "s", "ls", true, PlanAllowed)
	other := rec("a", "s", "ls ", true, PlanAllowed)
	for _, r := range []*planRecord{pending, first, second, other} {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond)
	}
	if got, ok := s.findApproved(owner, "ls"); !ok || got.ref != first.ref {
		t.Errorf("findApproved = %v %v, want %s", got.planRecord, ok, first.ref)
	}
	if _, ok := s.findApproved(sessionKey{"a", "t"}, "ls"); ok {
		t.Error("found a plan of another session")
	}
	if _, ok := s.findApproved(owner, "ls -a"); ok {
		t.Error("found a plan of another source")
	}
}

// An apply runs only a plan that derives exactly what was stored.
func TestSamePlan(t *testing.T) {
	base := func() *leash.Plan {
		return &leash.Plan{Reversibility: leash.Irreversible, Effects: []leash.Effect{
			{Kind: host.FSRead, Path: "/w/a"}, {Kind: host.ProcSpawn, Program: "git", Argv: []string{"git", "status"}},
		}}
	}
	tests := []struct {
		name   string
		change func(p *leash.Plan)
		same   bool
	}{
		{"identical", func(*leash.Plan) {}, true},
		{"another path", func(p *leash.Plan) { p.Effects[0].Path = "/w/b" }, false},
		{"another argv", func(p *leash.Plan) { p.Effects[1].Argv = []string{"git", "push"} }, false},
		{"dynamic", func(p *leash.Plan) { p.Effects[0].Dynamic = true }, false},
		{"reordered", func(p *leash.Plan) { p.Effects[0], p.Effects[1] = p.Effects[1], p.Effects[0] }, false},
		{"one more", func(p *leash.Plan) { p.Effects = append(p.Effects, leash.Effect{Kind: host.FSDelete, Path: "/w/a"}) }, false},
		{"reversibility", func(p *leash.Plan) { p.Reversibility = leash.Conditional }, false},
		{"opaque", func(p *leash.Plan) { p.Opaque = true }, false},
	}
	for _, tt := range tests {
		b := base()
		tt.change(b)
		if got := samePlan(base(), b); got != tt.same {
			t.Errorf("%s: samePlan = %v, want %v", tt.name, got, tt.same)
		}
	}
}
