package kernel

import (
	"container/list"
	"time"
)

// Tombstones. A plan that can no longer run (applied; expired; denied and
// past its time) leaves its ref behind with the state it ended in, so
// that plan.get, plan.apply and cap.request can say "applied" or
// "expired" (UNKNOWN_PLAN with data.state) rather than only that the ref
// is unknown. A tombstone is small (ref, owner, state, time) and bounded:
// Limits.PlanTombstones per principal and MaxPlanTombstones kernel-wide,
// the oldest forgotten first (its ref is then plain UNKNOWN_PLAN). With a
// state directory each is a row of the journal's plans table, deleted
// when it is forgotten.

// tomb is one ended plan's ref.
type tomb struct {
	ref   string
	owner sessionKey
	state string
	ended time.Time
	all   *list.Element // in tombstones.order
	mine  *list.Element // in its principal's list
}

// tombstones holds the tombs, oldest first overall and per principal.
type tombstones struct {
	perPrincipal, total int
	byRef               map[string]*tomb
	order               list.List
	byPrincipal         map[string]*list.List
}

func newTombstones(perPrincipal, total int) tombstones {
	if total <= 0 {
		total = MaxPlanTombstones
	}
	return tombstones{perPrincipal: perPrincipal, total: total, byRef: map[string]*tomb{}, byPrincipal: map[string]*list.List{}}
}

func (t *tombstones) has(ref string) bool { _, ok := t.byRef[ref]; return ok }

func (t *tombstones) get(ref string) (*tomb, bool) {
	tb, ok := t.byRef[ref]
	return tb, ok
}

func (t *tombstones) len() int { return len(t.byRef) }

// add keeps ref's tombstone and forgets the oldest past the bounds
// (ref's own at once when none may be kept), telling forget which.
func (t *tombstones) add(ref string, owner sessionKey, state string, ended time.Time, forget func([]string)) {
	if t.perPrincipal <= 0 {
		forget([]string{ref})
		return
	}
	tb := &tomb{ref: ref, owner: owner, state: state, ended: ended}
	mine := t.byPrincipal[owner.principal]
	if mine == nil {
		mine = list.New()
		t.byPrincipal[owner.principal] = mine
	}
	tb.all, tb.mine = t.order.PushBack(tb), mine.PushBack(tb)
	t.byRef[ref] = tb
	var gone []string
	for mine.Len() > t.perPrincipal {
		gone = append(gone, t.remove(mine.Front().Value.(*tomb)))
	}
	for t.order.Len() > t.total {
		gone = append(gone, t.remove(t.order.Front().Value.(*tomb)))
	}
	if len(gone) > 0 {
		forget(gone)
	}
}

// remove forgets tb and returns its ref.
func (t *tombstones) remove(tb *tomb) string {
	delete(t.byRef, tb.ref)
	t.order.Remove(tb.all)
	if mine := t.byPrincipal[tb.owner.principal]; mine != nil {
		mine.Remove(tb.mine)
		if mine.Len() == 0 {
			delete(t.byPrincipal, tb.owner.principal)
		}
	}
	return tb.ref
}
