package kernel

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/leash"
)

// Durable plans. With a state directory every change of a stored plan is
// committed to the journal's plans table before it takes effect and
// before its answer: storing it, an approver's decision, its being
// applied (marked before its run starts, so that a crash during the run
// never lets it run again) and the end of its tombstone. Expiry is
// recorded too, but a restart needs no record of it: a plan read back
// past its expiry is expired. At start (loadPlans) the kernel reads every
// plan back: live ones under the same bounds as new ones, tombstones
// under theirs, and approval tickets checked against the policy in force.
// Without a state directory the store has no sink and keeps everything in
// memory only, as it always did.

// planSink records plan changes durably (journalPlans); each call returns
// once the change is committed.
type planSink interface {
	put(rec *planRecord) error
	update(ups ...journal.PlanUpdate) error
	forget(refs []string) error
}

// journalPlans is the planSink of a kernel with a state directory.
type journalPlans struct{ db *journal.DB }

func (j journalPlans) put(rec *planRecord) error {
	plan, err := json.Marshal(rec.plan)
	if err != nil {
		return fmt.Errorf("encoding plan: %w", err)
	}
	return j.db.PutPlan(&journal.PlanRow{
		Ref: rec.ref, Principal: rec.owner.principal, Session: rec.owner.name, Src: rec.src, Plan: plan,
		Verdict: rec.verdict, Reasons: rec.reasons, State: rec.state, Approver: rec.approver, Uncovered: rec.uncovered,
		Ticket: rec.ticket, CreatedNS: rec.created.UnixNano(), ExpiresNS: rec.expires.UnixNano(),
	})
}

func (j journalPlans) update(ups ...journal.PlanUpdate) error { return j.db.UpdatePlans(ups) }
func (j journalPlans) forget(refs []string) error             { return j.db.DeletePlans(refs) }

// planChange is the update of ref to a decision; a non-zero ended ends it.
func planChange(ref, state, approver string, uncovered []string, ticket string, ended time.Time) journal.PlanUpdate {
	u := journal.PlanUpdate{Ref: ref, State: state, Approver: approver, Uncovered: uncovered, Ticket: ticket}
	if !ended.IsZero() {
		u.EndedNS = ended.UnixNano()
	}
	return u
}

// endedState is the state an unapplied plan ends in when its time is up:
// a denied plan stays denied, any other is expired.
func endedState(rec *planRecord) string {
	if rec.state == PlanDenied {
		return PlanDenied
	}
	return PlanExpired
}

// endLocked turns expired records (already removed) into tombstones,
// recording them; a failure to record is logged, not fatal: a restart
// finds them expired by their time.
func (s *planStore) endLocked(recs []*planRecord, now time.Time) {
	if len(recs) == 0 {
		return
	}
	if s.sink != nil {
		ups := make([]journal.PlanUpdate, 0, len(recs))
		for _, rec := range recs {
			ups = append(ups, planChange(rec.ref, endedState(rec), rec.approver, rec.uncovered, rec.ticket, now))
		}
		if err := s.sink.update(ups...); err != nil {
			s.warnf("recording expired plans", err)
		}
	}
	for _, rec := range recs {
		s.tombs.add(rec.ref, rec.owner, endedState(rec), now, s.forgetTombs)
	}
}

// forgetTombs deletes the rows of tombstones past their bound.
func (s *planStore) forgetTombs(refs []string) {
	if s.sink == nil {
		return
	}
	if err := s.sink.forget(refs); err != nil {
		s.warnf("forgetting plan tombstones", err)
	}
}

func (s *planStore) warnf(msg string, err error) {
	if s.warn != nil {
		s.warn(msg, err)
	}
}

// planLoad is what loadPlans did, for the log and tests.
type planLoad struct {
	live, tombs, repended, dropped int
	pending                        []*planRecord // live and pending: their approval events are published again
}

// loadPlans reads the plans rows back into the store (empty, before the
// kernel serves): a row that ended is a tombstone; a live row past its
// expiry ends now (expired, or denied); a live row whose approval ticket
// does not match its digest under the policy in force (gen) waits for
// approval again, recorded so; a live row past a bound (bounds lowered
// since it was stored) or whose plan does not decode is dropped, its row
// deleted. local is the kernel owner's principal (whose plans are not
// charged to the token bounds).
func (s *planStore) loadPlans(rows []journal.PlanRow, local string) (planLoad, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var res planLoad
	now := s.now()
	type ended struct {
		ref   string
		owner sessionKey
		state string
		at    time.Time
	}
	var tombs []ended
	var ups []journal.PlanUpdate
	var drop []string
	var expired []*planRecord
	for i := range rows {
		r := &rows[i]
		owner := sessionKey{principal: r.Principal, name: r.Session}
		if r.EndedNS != 0 {
			tombs = append(tombs, ended{r.Ref, owner, r.State, time.Unix(0, r.EndedNS)})
			continue
		}
		var plan leash.Plan
		if err := json.Unmarshal(r.Plan, &plan); err != nil {
			s.warnf("dropping stored plan "+r.Ref+" whose plan does not decode", err)
			drop = append(drop, r.Ref)
			continue
		}
		if plan.Effects == nil {
			plan.Effects = []leash.Effect{}
		}
		rec := &planRecord{
			ref: r.Ref, owner: owner, token: r.Principal != local, src: r.Src, plan: &plan,
			created: time.Unix(0, r.CreatedNS), expires: time.Unix(0, r.ExpiresNS),
			verdict: r.Verdict, reasons: r.Reasons, state: r.State, approver: r.Approver, uncovered: r.Uncovered,
			ticket: r.Ticket, restored: true,
		}
		rec.size = planSize(rec.src, rec.plan)
		if !now.Before(rec.expires) {
			expired = append(expired, rec)
			continue
		}
		if (rec.state == PlanApproved || rec.state == PlanAllowed) && rec.ticket != planDigest(rec, s.gen) {
			rec.state, rec.approver, rec.ticket = PlanPending, "", ""
			ups = append(ups, planChange(rec.ref, rec.state, "", rec.uncovered, "", time.Time{}))
			res.repended++
		}
		if err := s.roomLocked(rec); err != nil {
			s.warnf("dropping stored plan "+r.Ref+" past a bound", err)
			drop = append(drop, r.Ref)
			continue
		}
		s.insertLocked(rec)
		res.live++
		if rec.state == PlanPending {
			res.pending = append(res.pending, rec)
		}
	}
	if s.sink != nil {
		if err := s.sink.update(ups...); err != nil && len(ups) > 0 {
			return res, fmt.Errorf("kernel: recording plans approved under another policy as pending: %w", err)
		}
		if len(drop) > 0 {
			if err := s.sink.forget(drop); err != nil {
				s.warnf("forgetting dropped plans", err)
			}
		}
	}
	res.dropped = len(drop)
	slices.SortStableFunc(tombs, func(a, b ended) int { return a.at.Compare(b.at) })
	for _, t := range tombs {
		s.tombs.add(t.ref, t.owner, t.state, t.at, s.forgetTombs)
	}
	s.endLocked(expired, now)
	res.tombs = s.tombs.len()
	s.armLocked()
	return res, nil
}

// restorePlans reads the journal's stored plans into the kernel's store
// and publishes a pending approval event for each plan still waiting, so
// approvers attaching to this kernel see it.
func (s *Server) restorePlans() error {
	var rows []journal.PlanRow
	if err := s.journal.db.Plans(func(r *journal.PlanRow) error {
		rows = append(rows, *r)
		return nil
	}); err != nil {
		return fmt.Errorf("kernel: reading stored plans: %w", err)
	}
	res, err := s.plans.loadPlans(rows, s.local)
	if err != nil {
		return err
	}
	for _, rec := range res.pending {
		s.publishApproval(rec, PlanPending, "")
	}
	if len(rows) > 0 {
		s.log.Info("stored plans restored", "live", res.live, "tombstones", res.tombs,
			"pending_again", res.repended, "dropped", res.dropped)
	}
	return nil
}
