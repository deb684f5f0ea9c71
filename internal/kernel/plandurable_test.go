package kernel

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
)

// memSink is a planSink that keeps the rows as the journal would, and
// can be made to fail.
type memSink struct {
	mu   sync.Mutex
	rows map[string]journal.PlanRow
	fail error
}

func (m *memSink) put(rec *planRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.rows[rec.ref] = journal.PlanRow{Ref: rec.ref, Principal: rec.owner.principal, Session: rec.owner.name, State: rec.state, Ticket: rec.ticket}
	return nil
}

func (m *memSink) update(ups ...journal.PlanUpdate) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	for _, u := range ups {
		r := m.rows[u.Ref]
		r.State, r.Ticket, r.EndedNS = u.State, u.Ticket, u.EndedNS
		m.rows[u.Ref] = r
	}
	return nil
}

func (m *memSink) forget(refs []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range refs {
		delete(m.rows, r)
	}
	return nil
}

func (m *memSink) state(ref string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[ref].State
}

// Every change is recorded before it takes effect; a change the sink
// refuses does not happen: the plan is not stored, stays pending, or is
// not consumed.
func TestPlanStoreRecordsFirst(t *testing.T) {
	b := storeBounds
	b.tombs = 4
	s, _, _ := testStore(t, b)
	sink := &memSink{rows: map[string]journal.PlanRow{}}
	s.sink, s.gen = sink, "gen1"
	owner := sessionKey{"a", "s"}
	r := rec("a", "s", "rm /w/x", true, PlanPending)
	if err := s.add(r); err != nil || sink.state(r.ref) != PlanPending {
		t.Fatalf("add: %v, recorded %q", err, sink.state(r.ref))
	}
	broken := errors.New("disk gone")
	sink.fail = broken
	if err := s.add(rec("a", "s", "ls", true, PlanAllowed)); !errors.Is(err, broken) || s.count() != 1 {
		t.Fatalf("add with a failing sink: %v, %d stored", err, s.count())
	}
	if _, _, err := s.decide(r.ref, "lead", false, nil); !errors.Is(err, broken) {
		t.Fatalf("decide with a failing sink: %v", err)
	}
	if g, _ := s.get(r.ref, owner); g.State != PlanPending {
		t.Fatalf("state after a refused decision: %q", g.State)
	}
	sink.fail = nil
	if after, changed, err := s.decide(r.ref, "lead", false, nil); err != nil || !changed || after.State != PlanApproved || sink.state(r.ref) != PlanApproved {
		t.Fatalf("decide: %+v %v %v, recorded %q", after.State, changed, err, sink.state(r.ref))
	}
	sink.fail = broken
	if _, err := s.consume(r.ref, owner, VerdictApprovalRequired); !errors.Is(err, broken) {
		t.Fatalf("consume with a failing sink: %v", err)
	}
	sink.fail = nil
	if _, err := s.consume(r.ref, owner, VerdictApprovalRequired); err != nil || sink.state(r.ref) != PlanApplied {
		t.Fatalf("consume: %v, recorded %q", err, sink.state(r.ref))
	}
	var gone *planGoneError
	if _, err := s.consume(r.ref, owner, VerdictAllow); !errors.As(err, &gone) || gone.state != PlanApplied || !errors.Is(err, errUnknownPlan) {
		t.Fatalf("second consume: %v", err)
	}
	if _, err := s.get(r.ref, sessionKey{"b", "s"}); err != errUnknownPlan {
		t.Fatalf("another principal's view of a tombstone: %v, want plain errUnknownPlan", err)
	}
}

// Expiry leaves a tombstone saying expired (denied for a denied plan);
// tombstones past the per-principal bound are forgotten, oldest first,
// and their rows deleted.
func TestPlanTombstones(t *testing.T) {
	b := storeBounds
	b.tombs = 3
	s, clk, _ := testStore(t, b)
	sink := &memSink{rows: map[string]journal.PlanRow{}}
	s.sink = sink
	owner := sessionKey{"a", "s"}
	pending, denied := rec("a", "s", "x", true, PlanPending), rec("a", "s", "y", true, PlanDenied)
	for _, r := range []*planRecord{pending, denied} {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	clk.advance(time.Hour)
	for ref, want := range map[string]string{pending.ref: PlanExpired, denied.ref: PlanDenied} {
		var gone *planGoneError
		if _, err := s.get(ref, owner); !errors.As(err, &gone) || gone.state != want {
			t.Fatalf("get of an expired plan: %v, want state %s", err, want)
		}
	}
	s.tick()
	if sink.state(pending.ref) != PlanExpired || sink.state(denied.ref) != PlanDenied || s.tombs.len() != 2 {
		t.Fatalf("after the sweep: recorded %q %q, %d tombstones", sink.state(pending.ref), sink.state(denied.ref), s.tombs.len())
	}
	var refs []string
	for range 3 {
		r := rec("a", "s", "ls", true, PlanAllowed)
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
		if _, err := s.consume(r.ref, owner, VerdictAllow); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r.ref)
	}
	if s.tombs.len() != 3 || s.tombs.has(pending.ref) || s.tombs.has(denied.ref) {
		t.Fatalf("%d tombstones; the two oldest kept: %v %v", s.tombs.len(), s.tombs.has(pending.ref), s.tombs.has(denied.ref))
	}
	if _, ok := sink.rows[pending.ref]; ok {
		t.Error("a forgotten tombstone's row was not deleted")
	}
	if _, err := s.get(pending.ref, owner); err != errUnknownPlan {
		t.Errorf("a forgotten tombstone's ref: %v, want plain errUnknownPlan", err)
	}
	for _, ref := range refs {
		if sink.state(ref) != PlanApplied {
			t.Errorf("applied plan recorded as %q", sink.state(ref))
		}
	}
}

// Through the real journal: plans read back at start keep their state;
// an approval given under another policy generation is pending again (and
// recorded so); one past its expiry is a tombstone; tombstones stay.
func TestLoadPlansFromJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := planBounds{session: 16, principal: 16, token: 16, memory: 1 << 20, ttl: time.Minute, tombs: 10}
	s, clk, _ := testStore(t, b)
	s.sink, s.gen = journalPlans{db}, "gen1"
	owner := sessionKey{"agent:w", "s"}
	mk := func(state string) *planRecord {
		r := rec("agent:w", "s", "rm /w/"+state, true, state)
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	approved, pending, denied, applied := mk(PlanPending), mk(PlanPending), mk(PlanPending), mk(PlanAllowed)
	if _, _, err := s.decide(approved.ref, "lead", false, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.decide(denied.ref, "lead", true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.consume(applied.ref, owner, VerdictAllow); err != nil {
		t.Fatal(err)
	}
	clk.advance(30 * time.Second)
	late := mk(PlanPending) // expires 30 s after the others

	load := func(gen string, after time.Duration) *planStore {
		t.Helper()
		var rows []journal.PlanRow
		if err := db.Plans(func(r *journal.PlanRow) error { rows = append(rows, *r); return nil }); err != nil {
			t.Fatal(err)
		}
		n, c2, _ := testStore(t, b)
		c2.t = clk.now().Add(after)
		n.sink, n.gen = journalPlans{db}, gen
		if _, err := n.loadPlans(rows, "uid:0"); err != nil {
			t.Fatal(err)
		}
		return n
	}
	same := load("gen1", 0)
	for r, want := range map[*planRecord]string{approved: PlanApproved, pending: PlanPending, denied: PlanDenied, late: PlanPending} {
		if g, err := same.get(r.ref, owner); err != nil || g.State != want || !g.restored {
			t.Errorf("restored %s: %+v, %v", want, g.State, err)
		}
	}
	var gone *planGoneError
	if _, err := same.get(applied.ref, owner); !errors.As(err, &gone) || gone.state != PlanApplied {
		t.Errorf("restored applied plan: %v", err)
	}
	if _, err := same.consume(approved.ref, owner, VerdictApprovalRequired); err != nil {
		t.Errorf("an approval under the same policy: %v", err)
	}

	other := load("gen2", 0)
	if _, err := other.consume(pending.ref, owner, VerdictApprovalRequired); !errors.Is(err, errPlanPending) {
		t.Errorf("pending plan under a new policy: %v", err)
	}
	// The approved plan was applied by the first load; store a fresh
	// approval to see one downgraded.
	fresh := mk(PlanPending)
	if _, _, err := s.decide(fresh.ref, "lead", false, nil); err != nil {
		t.Fatal(err)
	}
	other = load("gen2", 0)
	if g, err := other.get(fresh.ref, owner); err != nil || g.State != PlanPending || g.Approver != "" {
		t.Errorf("an approval under another policy: %+v, %v", g.State, err)
	}
	if _, err := other.consume(fresh.ref, owner, VerdictApprovalRequired); !errors.Is(err, errPlanPending) {
		t.Errorf("applying an approval given under another policy: %v", err)
	}
	if again := load("gen1", 0); func() bool { g, _ := again.get(fresh.ref, owner); return g.State != PlanPending }() {
		t.Error("the downgrade was not recorded: the old policy's approval came back")
	}

	expiredView := load("gen1", 45*time.Second)
	if _, err := expiredView.get(pending.ref, owner); !errors.As(err, &gone) || gone.state != PlanExpired {
		t.Errorf("a plan past its expiry at start: %v", err)
	}
	if _, err := expiredView.get(denied.ref, owner); !errors.As(err, &gone) || gone.state != PlanDenied {
		t.Errorf("a denied plan past its expiry at start: %v", err)
	}
	if g, err := expiredView.get(late.ref, owner); err != nil || g.State != PlanPending {
		t.Errorf("a plan not yet expired: %+v, %v", g.State, err)
	}
}

// The kernel-wide bound forgets the oldest tombstone of any principal.
func TestTombstonesTotalBound(t *testing.T) {
	tb := newTombstones(4, 5)
	var forgot []string
	forget := func(refs []string) { forgot = append(forgot, refs...) }
	now := time.Unix(0, 0)
	for i := range 6 {
		p := "a"
		if i%2 == 1 {
			p = "b"
		}
		tb.add(string(rune('0'+i)), sessionKey{p, "s"}, PlanApplied, now, forget)
	}
	if tb.len() != 5 || len(forgot) != 1 || forgot[0] != "0" || tb.has("0") {
		t.Fatalf("%d kept, forgot %v", tb.len(), forgot)
	}
	none := newTombstones(0, 0)
	none.add("x", sessionKey{"a", "s"}, PlanApplied, now, forget)
	if none.len() != 0 || forgot[len(forgot)-1] != "x" {
		t.Fatalf("with no tombstones allowed: %d kept, forgot %v", none.len(), forgot)
	}
}
