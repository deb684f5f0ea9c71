package kernel

import (
	"container/list"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/leash"
)

// Plan states, as plan.get reports them and approval events carry them.
const (
	// PlanAllowed: the verdict was allow when the plan was stored; it
	// needs no approval and its owner may apply it.
	PlanAllowed = "allowed"
	// PlanPending: the verdict was approval_required; an approver has not
	// decided yet.
	PlanPending = "pending"
	// PlanApproved: an approver approved it; its owner may apply it.
	PlanApproved = "approved"
	// PlanDenied: an approver denied it, or policy denies it outright
	// (verdict deny); it can never be applied.
	PlanDenied = "denied"
	// PlanExpired: it outlived Limits.PlanTTL unapplied and was dropped.
	// Its ref is UNKNOWN_PLAN afterwards, with data.state "expired" while
	// its tombstone is kept (planstombs.go).
	PlanExpired = "expired"
	// PlanApplied: it was applied (marked so, durably, before its run
	// started). Its ref is UNKNOWN_PLAN afterwards, with data.state
	// "applied" while its tombstone is kept.
	PlanApplied = "applied"
)

// Verdicts, as policy gives them and answers carry them.
const (
	VerdictAllow            = "allow"
	VerdictApprovalRequired = "approval_required"
	VerdictDeny             = "deny"
)

// planRecord is one stored plan. Its ref, owner and source never change;
// the other fields are guarded by the store's mutex.
type planRecord struct {
	ref     string
	owner   sessionKey // the principal and session that stored it
	token   bool       // owner.principal is a token principal (token bounds)
	src     string
	plan    *leash.Plan
	created time.Time
	expires time.Time
	size    int64 // what it is charged to PlanMemory

	verdict   string
	reasons   []string
	state     string
	approver  string   // who decided, once decided
	uncovered []string // effect kinds a partial cap.request left uncovered
	// ticket is the digest (planDigest) an approval, or the allow verdict
	// it was stored with, was given for: it lets the plan run only while
	// the digest of the record under the policy in force is the same.
	ticket string
	// restored: read back from the journal at start (its plan decoded
	// from JSON).
	restored bool

	elem *list.Element // in planStore.order
}

// planSnapshot is a copy of a record's mutable fields, taken under the
// store's mutex, with the record's fixed fields.
type planSnapshot struct {
	*planRecord
	Verdict   string
	Reasons   []string
	State     string
	Approver  string
	Uncovered []string
}

// planBounds are the limits a store keeps (see Limits).
type planBounds struct {
	session, principal, token int
	memory                    int64
	ttl                       time.Duration
	// tombs is how many tombstones of one principal are kept (0: none);
	// tombsTotal how many of all principals together (0: MaxPlanTombstones).
	tombs, tombsTotal int
}

// planStore holds the kernel's stored plans by ref. Refs are fresh
// randomness, so nothing about a plan can be learnt from its ref and two
// plans never share one; a record is never replaced, only added, decided
// and removed (applied or expired). Every plan is charged to its session
// and principal, and a token principal's also to the bounds all token
// principals share, so other principals cannot use up the owner's room.
type planStore struct {
	mu          sync.Mutex
	lim         planBounds
	byRef       map[string]*planRecord
	bySession   map[sessionKey]map[string]*planRecord
	byPrincipal map[string]int
	tokenCount  int
	tokenBytes  int64
	order       list.List // every record, oldest (first to expire) first
	now         func() time.Time
	timer       *time.Timer // fires at the oldest record's expiry
	closed      bool
	// expired is called, without the mutex, with the records an expiry
	// sweep dropped.
	expired func([]*planRecord)
	// tombs are the refs of plans that can no longer run (planstombs.go).
	tombs tombstones
	// sink, when set, is told of every change before it takes effect
	// (plandurable.go); a change it refuses does not happen. gen is the
	// policy generation tickets are bound to.
	sink planSink
	gen  string
	// warn reports a change the sink failed to record that the store
	// makes anyway (an expiry: a restart finds it expired by its time).
	warn func(msg string, err error)
}

func newPlanStore(lim planBounds, expired func([]*planRecord)) *planStore {
	return &planStore{
		lim:         lim,
		byRef:       map[string]*planRecord{},
		bySession:   map[sessionKey]map[string]*planRecord{},
		byPrincipal: map[string]int{},
		now:         time.Now,
		expired:     expired,
		tombs:       newTombstones(lim.tombs, lim.tombsTotal),
	}
}

// newPlanRef returns "plan:" and 32 lowercase hex digits of crypto/rand.
func newPlanRef() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("plan ref: %w", err)
	}
	return "plan:" + hex.EncodeToString(b[:]), nil
}

// planSize is what rec is charged to PlanMemory: its source and its
// effects' strings, with a fixed overhead per record and per effect.
func planSize(src string, p *leash.Plan) int64 {
	n := int64(len(src)) + 256
	for _, e := range p.Effects {
		n += 64 + int64(len(e.Kind)+len(e.Path)+len(e.Program)+len(e.Name))
		for _, a := range e.Argv {
			n += 16 + int64(len(a))
		}
	}
	for _, note := range p.Notes {
		n += 16 + int64(len(note))
	}
	return n
}

// add stores rec under a fresh ref, charging its bounds; it fills rec's
// ref, times and size. Past a bound it stores nothing and answers a
// *planBoundError.
func (s *planStore) add(rec *planRecord) error {
	rec.size = planSize(rec.src, rec.plan)
	s.mu.Lock()
	dropped := s.sweepLocked()
	err := s.addLocked(rec)
	s.mu.Unlock()
	s.report(dropped)
	return err
}

func (s *planStore) addLocked(rec *planRecord) error {
	if s.closed {
		return errPlanStoreClosed
	}
	if err := s.roomLocked(rec); err != nil {
		return err
	}
	for {
		ref, err := newPlanRef()
		if err != nil {
			return err
		}
		if _, taken := s.byRef[ref]; !taken && !s.tombs.has(ref) { // never overwrite, however unlikely
			rec.ref = ref
			break
		}
	}
	rec.created = s.now()
	rec.expires = rec.created.Add(s.lim.ttl)
	if rec.state == PlanAllowed || rec.state == PlanApproved {
		rec.ticket = planDigest(rec, s.gen) // the verdict it is stored with stands for its approval
	}
	if s.sink != nil {
		if err := s.sink.put(rec); err != nil {
			return err
		}
	}
	s.insertLocked(rec)
	return nil
}

// roomLocked checks rec fits every bound.
func (s *planStore) roomLocked(rec *planRecord) error {
	sess := s.bySession[rec.owner]
	switch {
	case len(sess) >= s.lim.session:
		return &planBoundError{budget: "session_plans", flag: "session-plans", limit: int64(s.lim.session)}
	case s.byPrincipal[rec.owner.principal] >= s.lim.principal:
		return &planBoundError{budget: "principal_plans", flag: "principal-plans", limit: int64(s.lim.principal)}
	case rec.token && s.tokenCount >= s.lim.token:
		return &planBoundError{budget: "token_plans", flag: "token-plans", limit: int64(s.lim.token)}
	case rec.token && s.tokenBytes+rec.size > s.lim.memory:
		return &planBoundError{budget: "plan_memory", flag: "plan-memory", limit: s.lim.memory}
	}
	return nil
}

// insertLocked indexes rec (its ref and times set) and charges its bounds.
func (s *planStore) insertLocked(rec *planRecord) {
	sess := s.bySession[rec.owner]
	if sess == nil {
		sess = map[string]*planRecord{}
		s.bySession[rec.owner] = sess
	}
	sess[rec.ref] = rec
	s.byRef[rec.ref] = rec
	s.byPrincipal[rec.owner.principal]++
	if rec.token {
		s.tokenCount++
		s.tokenBytes += rec.size
	}
	rec.elem = s.order.PushBack(rec)
	if s.order.Len() == 1 {
		s.armLocked()
	}
}

// removeLocked forgets rec and gives back what it was charged.
func (s *planStore) removeLocked(rec *planRecord) {
	if _, ok := s.byRef[rec.ref]; !ok {
		return
	}
	delete(s.byRef, rec.ref)
	if sess := s.bySession[rec.owner]; sess != nil {
		delete(sess, rec.ref)
		if len(sess) == 0 {
			delete(s.bySession, rec.owner)
		}
	}
	if s.byPrincipal[rec.owner.principal]--; s.byPrincipal[rec.owner.principal] <= 0 {
		delete(s.byPrincipal, rec.owner.principal)
	}
	if rec.token {
		s.tokenCount--
		s.tokenBytes -= rec.size
	}
	s.order.Remove(rec.elem)
}

// sweepLocked drops every record past its expiry and returns them.
func (s *planStore) sweepLocked() []*planRecord {
	now := s.now()
	var out []*planRecord
	for e := s.order.Front(); e != nil; e = s.order.Front() {
		rec := e.Value.(*planRecord)
		if now.Before(rec.expires) {
			break
		}
		s.removeLocked(rec)
		out = append(out, rec)
	}
	s.endLocked(out, now)
	return out
}

// armLocked sets the timer for the oldest record's expiry.
func (s *planStore) armLocked() {
	front := s.order.Front()
	if front == nil || s.closed {
		return
	}
	d := front.Value.(*planRecord).expires.Sub(s.now())
	if d < 0 {
		d = 0
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(d, s.tick)
		return
	}
	s.timer.Reset(d)
}

// tick is the expiry timer: it drops what has expired and sets the timer
// for the next expiry.
func (s *planStore) tick() {
	s.mu.Lock()
	dropped := s.sweepLocked()
	s.armLocked()
	s.mu.Unlock()
	s.report(dropped)
}

// report hands expired records to the store's hook.
func (s *planStore) report(dropped []*planRecord) {
	if len(dropped) > 0 && s.expired != nil {
		s.expired(dropped)
	}
}

// close stops the expiry timer; the store refuses new plans afterwards.
func (s *planStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
}

// snapshotLocked copies rec's mutable fields.
func snapshotLocked(rec *planRecord) planSnapshot {
	return planSnapshot{
		planRecord: rec,
		Verdict:    rec.verdict,
		Reasons:    append([]string(nil), rec.reasons...),
		State:      rec.state,
		Approver:   rec.approver,
		Uncovered:  append([]string(nil), rec.uncovered...),
	}
}

// lookupLocked finds ref for caller: errUnknownPlan when no live record
// has it, errForeignPlan when it is not caller's.
func (s *planStore) lookupLocked(ref string, caller sessionKey) (*planRecord, error) {
	rec, err := s.liveLocked(ref)
	if err != nil {
		if g, ok := err.(*planGoneError); ok && g.owner != caller {
			return nil, errUnknownPlan // a tombstone says nothing to anyone else
		}
		return nil, err
	}
	if rec.owner != caller {
		return nil, errForeignPlan
	}
	return rec, nil
}

// liveLocked finds the live record of ref, whoever owns it: a
// *planGoneError when ref names a plan that can no longer run, its
// tombstone or a record past its expiry not yet swept; errUnknownPlan
// when it names nothing.
func (s *planStore) liveLocked(ref string) (*planRecord, error) {
	rec, ok := s.byRef[ref]
	if !ok {
		if t, ok := s.tombs.get(ref); ok {
			return nil, &planGoneError{state: t.state, owner: t.owner}
		}
		return nil, errUnknownPlan
	}
	if !s.now().Before(rec.expires) {
		st := PlanExpired
		if rec.state == PlanDenied {
			st = PlanDenied
		}
		return nil, &planGoneError{state: st, owner: rec.owner}
	}
	return rec, nil
}

// get returns caller's plan ref.
func (s *planStore) get(ref string, caller sessionKey) (planSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.lookupLocked(ref, caller)
	if err != nil {
		return planSnapshot{}, err
	}
	return snapshotLocked(rec), nil
}

// list returns caller's live plans, oldest first.
func (s *planStore) list(caller sessionKey) []planSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.bySession[caller]
	out := make([]planSnapshot, 0, len(sess))
	now := s.now()
	for e := s.order.Front(); e != nil && len(out) < len(sess); e = e.Next() {
		rec := e.Value.(*planRecord)
		if rec.owner == caller && now.Before(rec.expires) {
			out = append(out, snapshotLocked(rec))
		}
	}
	return out
}

// findApproved returns the oldest live plan of caller with source src
// that may run: approved, or stored with verdict allow.
func (s *planStore) findApproved(caller sessionKey, src string) (planSnapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var best *planRecord
	for _, rec := range s.bySession[caller] {
		if rec.src != src || !now.Before(rec.expires) || (rec.state != PlanApproved && rec.state != PlanAllowed) {
			continue
		}
		if best == nil || rec.created.Before(best.created) || (rec.created.Equal(best.created) && rec.ref < best.ref) {
			best = rec
		}
	}
	if best == nil {
		return planSnapshot{}, false
	}
	return snapshotLocked(best), true
}

// decide applies an approver's decision to the plan ref (the caller has
// already been found to be an approver allowed to decide it): approve
// with the kinds it covers (nil: all), or deny. It answers the snapshot
// after the decision and whether the state changed.
func (s *planStore) decide(ref, approver string, deny bool, covered map[string]bool) (planSnapshot, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.liveLocked(ref)
	if err != nil {
		return planSnapshot{}, false, err
	}
	if rec.verdict == VerdictDeny || rec.state == PlanDenied {
		return snapshotLocked(rec), false, errPlanDenied
	}
	if deny {
		if err := s.recordLocked(rec, PlanDenied, approver, nil, ""); err != nil {
			return planSnapshot{}, false, err
		}
		return snapshotLocked(rec), true, nil
	}
	if rec.state == PlanApproved || rec.state == PlanAllowed {
		return snapshotLocked(rec), false, nil
	}
	var uncovered []string
	if covered != nil {
		seen := map[string]bool{}
		for _, e := range rec.plan.Effects {
			k := string(e.Kind)
			if !covered[k] && !seen[k] {
				seen[k] = true
				uncovered = append(uncovered, k)
			}
		}
	}
	if len(uncovered) > 0 {
		if err := s.recordLocked(rec, rec.state, rec.approver, uncovered, rec.ticket); err != nil {
			return planSnapshot{}, false, err
		}
		return snapshotLocked(rec), false, nil
	}
	if err := s.recordLocked(rec, PlanApproved, approver, nil, planDigest(rec, s.gen)); err != nil {
		return planSnapshot{}, false, err
	}
	return snapshotLocked(rec), true, nil
}

// recordLocked changes rec's decision, once the sink has recorded it.
func (s *planStore) recordLocked(rec *planRecord, state, approver string, uncovered []string, ticket string) error {
	if s.sink != nil {
		if err := s.sink.update(planChange(rec.ref, state, approver, uncovered, ticket, time.Time{})); err != nil {
			return err
		}
	}
	rec.state, rec.approver, rec.uncovered, rec.ticket = state, approver, uncovered, ticket
	return nil
}

// peek returns rec for an approver's decision: the record whatever its
// owner (the caller's right to decide is checked by the caller).
func (s *planStore) peek(ref string) (planSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.liveLocked(ref)
	if err != nil {
		return planSnapshot{}, err
	}
	return snapshotLocked(rec), nil
}

// consume removes caller's plan ref for running it, if its state lets it
// run: approved, stored with verdict allow, or (pending) now allowed by
// the verdict the caller just derived, current. Policy denial by current
// is the caller's to refuse first. A plan runs at most once: of two
// concurrent applies one consumes it and the other finds it gone.
func (s *planStore) consume(ref string, caller sessionKey, current string) (planSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.lookupLocked(ref, caller)
	if err != nil {
		return planSnapshot{}, err
	}
	ticketed := (rec.state == PlanApproved || rec.state == PlanAllowed) && rec.ticket == planDigest(rec, s.gen)
	switch {
	case rec.state == PlanDenied:
		return planSnapshot{}, errPlanDenied
	case !ticketed && current != VerdictAllow:
		return planSnapshot{}, errPlanPending
	}
	// Marked applied, durably, before it runs: a crash during the run
	// leaves it applied, never runnable again.
	now := s.now()
	if s.sink != nil {
		if err := s.sink.update(planChange(rec.ref, PlanApplied, rec.approver, nil, rec.ticket, now)); err != nil {
			return planSnapshot{}, err
		}
	}
	snap := snapshotLocked(rec)
	s.removeLocked(rec)
	s.tombs.add(rec.ref, rec.owner, PlanApplied, now, s.forgetTombs)
	return snap, nil
}

// count returns how many plans the store holds.
func (s *planStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byRef)
}

// planBoundError is a plan refused because a bound is full.
type planBoundError struct {
	budget, flag string
	limit        int64
}

func (e *planBoundError) Error() string {
	return fmt.Sprintf("plan refused: quota_exceeded: %s (%d, --%s) is full; apply or let plans expire first", e.budget, e.limit, e.flag)
}

// planGoneError is a ref of a plan that can no longer run: applied,
// expired, or denied and expired. It is errUnknownPlan to errors.Is.
type planGoneError struct {
	state string
	owner sessionKey
}

func (e *planGoneError) Error() string   { return "plan " + e.state }
func (e *planGoneError) Is(t error) bool { return t == errUnknownPlan }

// Store errors, mapped to wire errors by planErr.
var (
	errUnknownPlan     = planError("unknown plan")
	errForeignPlan     = planError("foreign plan")
	errPlanDenied      = planError("plan denied")
	errPlanPending     = planError("plan awaits approval")
	errPlanStoreClosed = planError("the kernel is shutting down")
)

type planError string

func (e planError) Error() string { return string(e) }
