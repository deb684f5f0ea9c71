package events

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Durable channels. A channel whose events are also kept elsewhere (the
// kernel's journal keeps the journal and session.transcript channels) is
// numbered by that store: its events are published with the store's seq
// (PublishAt), and a reader passes a View whose Backfill rebuilds, from
// the store, the events the ring no longer retains (or never held, after
// a restart). Reads and subscriptions then see one gapless sequence: the
// store's part below the ring's oldest event, the ring's from there on.

// ErrSeqOrder reports a PublishAt whose seq is not above the stream's last.
var ErrSeqOrder = errors.New("events: seq not above the stream's last")

// PublishAt is PublishTo (aud nil: Publish's audience) with the event's
// seq and ts given, for a channel numbered by a durable store: seq must
// be above the stream's last (ErrSeqOrder otherwise, changing nothing);
// ts 0 stamps it now. Numbers between the last and seq are simply never
// used by this stream.
func (b *Bus) PublishAt(origin Scope, channel string, aud *Audience, seq uint64, ts int64, payload json.RawMessage) (Event, error) {
	return b.PublishAtScoped(origin, channel, aud, seq, 0, ts, payload, nil)
}

// PublishAtScoped is PublishAt for a global channel the store also
// numbers per origin principal: scopeSeq is the event's number among
// origin.Principal's events (Event.ScopeSeq), what a reader with a
// renumbering View (View.Renumber) sees as its seq, and scopePayload
// (nil: payload) what that reader sees as its payload. Both payloads are
// charged to the retention budgets.
func (b *Bus) PublishAtScoped(origin Scope, channel string, aud *Audience, seq, scopeSeq uint64, ts int64, payload, scopePayload json.RawMessage) (Event, error) {
	if seq == 0 {
		return Event{}, ErrSeqOrder
	}
	if aud == nil && channel == ChannelApproval {
		aud = &Audience{Scopes: []Scope{origin}}
	}
	return b.publish(origin, channel, payload, aud, true, seq, scopeSeq, ts, scopePayload)
}

// BackfillQuery asks a durable store for the events with After < seq <
// Before (Before 0: no upper bound) that the reader may see: at most Limit
// of them, the oldest, or with Tail the newest, oldest first either way.
type BackfillQuery struct {
	After, Before uint64
	Limit         int
	Tail          bool
}

// Backfill answers a BackfillQuery from a durable store. more reports
// that events of the range were left out (Limit, or a bound of the
// store's own); it is read only for queries without Tail. Events must
// come oldest first with seqs inside the range, already narrowed to what
// the reader may see.
type Backfill func(q BackfillQuery) (evs []Event, more bool, err error)

// View is how one reader sees a channel beyond the stream's own scoping,
// audience and filter.
type View struct {
	// Visible, when set, must also admit the scope an event was
	// published from. It runs with the bus's lock held: it must be quick
	// and must not call back into the Bus.
	Visible func(origin Scope) bool
	// Backfill, when set, rebuilds the events the ring does not retain.
	// A subscription with one never reports events dropped from the ring
	// (it reads them from the store instead); only a failing Backfill
	// makes a dropped marker.
	Backfill Backfill
	// Renumber, when set, makes the reader's sequence its own: it sees
	// each event numbered by its ScopeSeq, and the since it gives is in
	// that numbering, which Renumber maps to the channel's seq (the seq
	// of its newest event numbered since or below; 0 for none). Visible
	// must then admit only events of one origin principal, which the
	// store numbers densely, so that the reader's sequence has no gap
	// that counts events it may not see. Backfill queries stay in the
	// channel's seq; the events they return carry their ScopeSeq. A
	// dropped marker on such a view reports neither a count nor a seq
	// (both would count others' events): {"dropped":0,"latest_seq":0}.
	Renumber func(since uint64) (uint64, error)
}

// ScopeRenumber is a View.Renumber for a reader of channel, a global
// channel no store numbers, who sees only the events its own scope
// published (its View.Visible must say so): on such a channel the bus
// numbers each scope's events among its own, and this maps a since in
// that numbering to the channel's seq, from what the stream retains.
func (b *Bus) ScopeRenumber(viewer Scope, channel string) func(since uint64) (uint64, error) {
	return func(since uint64) (uint64, error) {
		if since == 0 {
			return 0, nil
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		st, _ := b.streamLocked(viewer, channel, false)
		if st == nil || !st.global {
			return 0, nil
		}
		for i := st.n - 1; i >= 0; i-- {
			if r := st.at(i); r.origin == viewer && !r.forgotten && r.ev.ScopeSeq <= since {
				return r.ev.Seq, nil
			}
		}
		// None retained at or below since: every retained one is after it.
		return 0, nil
	}
}

// renumbered is ev as a reader with v sees it.
func (v *View) renumbered(ev Event) Event {
	if v.Renumber != nil {
		ev.Seq = ev.ScopeSeq
		if ev.ScopePayload != nil {
			ev.Payload = ev.ScopePayload
		}
		ev.ScopePayload = nil
	}
	return ev
}

// ReadView is Read as v sees the channel: events with seq > since,
// oldest first, the newest limit of them. With v.Backfill, what is older
// than the ring's oldest retained event comes from the store, so the
// answer has no gap at the seam; a failing Backfill returns the ring's
// part and the error.
func (b *Bus) ReadView(viewer Scope, channel string, since uint64, limit int, v View) ([]Event, error) {
	if v.Renumber == nil {
		return b.readView(viewer, channel, since, limit, v)
	}
	at, err := v.Renumber(since)
	if err != nil {
		return []Event{}, err
	}
	evs, err := b.readView(viewer, channel, at, limit, v)
	for i := range evs {
		evs[i] = v.renumbered(evs[i])
	}
	return evs, err
}

func (b *Bus) readView(viewer Scope, channel string, since uint64, limit int, v View) ([]Event, error) {
	if limit <= 0 || limit > MaxReadLimit {
		limit = MaxReadLimit
	}
	b.mu.Lock()
	st, _ := b.streamLocked(viewer, channel, false)
	ring := []Event{}
	var oldest uint64
	current := false
	if st != nil {
		ring = st.collect(viewer, since, limit, v.Visible, v.Renumber != nil)
		oldest = st.oldestSeq()
		// Its events skipped unwatched and since at the last of them:
		// the store has nothing newer to give.
		current = st.skipped && since >= st.seq
	}
	b.mu.Unlock()
	if v.Backfill == nil || current || len(ring) >= limit || oldest != 0 && oldest <= since+1 {
		return ring, nil
	}
	older, _, err := v.Backfill(BackfillQuery{After: since, Before: oldest, Limit: limit - len(ring), Tail: true})
	if err != nil {
		return ring, err
	}
	return append(older, ring...), nil
}

// SubscribeView is Subscribe as v sees the channel. With v.Backfill a
// non-nil since is taken as it is (the store's numbering outlives the
// ring's), and the events after it that the ring does not retain are read
// from the store, ReplayBatch at a time, through the same sink and at its
// pace, before the ring's.
func (c *Subscriber) SubscribeView(viewer Scope, channel string, since *uint64, v View) (*Subscription, error) {
	if v.Renumber != nil && since != nil {
		seq, err := v.Renumber(*since)
		if err != nil {
			return nil, fmt.Errorf("subscribe to %q: %w", channel, err)
		}
		since = &seq
	}
	at := cursorFrom(since)
	at.view = v
	return c.subscribe(viewer, channel, at)
}
