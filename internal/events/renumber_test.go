package events

import (
	"encoding/json"
	"fmt"
	"testing"
)

// ownStore is a durable store numbering the journal channel globally and
// per origin principal, as the kernel's journal does (seq, pseq).
type ownStore struct {
	evs     []Event
	origins []Scope
	last    map[string]uint64
}

func (s *ownStore) add(t *testing.T, b *Bus, origin Scope) {
	t.Helper()
	if s.last == nil {
		s.last = map[string]uint64{}
	}
	seq := uint64(len(s.evs) + 1)
	s.last[origin.Principal]++
	own := s.last[origin.Principal]
	ev := Event{Channel: ChannelJournal, Seq: seq, TS: int64(1000 + seq), ScopeSeq: own,
		Payload: json.RawMessage(fmt.Sprintf(`{"who":%q,"n":%d}`, origin.Principal, own))}
	s.evs, s.origins = append(s.evs, ev), append(s.origins, origin)
	aud := &Audience{Principals: []string{"alice", "bob"}}
	if _, err := b.PublishAtScoped(origin, ChannelJournal, aud, seq, own, ev.TS, json.RawMessage(`"global"`), ev.Payload); err != nil {
		t.Fatal(err)
	}
}

// view is how principal who, seeing only its own events, reads the store.
func (s *ownStore) view(who string) View {
	mine := func(o Scope) bool { return o.Principal == who }
	return View{
		Visible: mine,
		Backfill: func(q BackfillQuery) ([]Event, bool, error) {
			var in []Event
			for i, ev := range s.evs {
				if ev.Seq > q.After && (q.Before == 0 || ev.Seq < q.Before) && mine(s.origins[i]) {
					in = append(in, ev)
				}
			}
			more := len(in) > q.Limit
			if more && q.Tail {
				in = in[len(in)-q.Limit:]
			} else if more {
				in = in[:q.Limit]
			}
			return in, more, nil
		},
		Renumber: func(since uint64) (uint64, error) {
			var at uint64
			for i, ev := range s.evs {
				if mine(s.origins[i]) && ev.ScopeSeq <= since {
					at = ev.Seq
				}
			}
			return at, nil
		},
	}
}

// wantOwn checks evs are bob's events from..to, numbered among his own.
func wantOwn(t *testing.T, what string, evs []Event, from, to uint64) {
	t.Helper()
	if uint64(len(evs)) != to-from+1 {
		t.Fatalf("%s: seqs %v, want %d..%d", what, seqsOf(evs), from, to)
	}
	for i, ev := range evs {
		n := from + uint64(i)
		if ev.Seq != n || string(ev.Payload) != fmt.Sprintf(`{"who":"bob","n":%d}`, n) {
			t.Fatalf("%s: event %d = seq %d %s, want bob's %d", what, i, ev.Seq, ev.Payload, n)
		}
	}
}

// A reader with a renumbering view sees its own events numbered 1, 2, 3…
// however many events of others fell between them, with their scope
// payloads: in reads from the ring and from the store across the seam,
// from a since in its own numbering, and in a subscription's replay and
// live events. A reader without one sees the channel's seq and payload.
func TestRenumberedView(t *testing.T) {
	b := New(smallRing(6))
	s := &ownStore{}
	for range 10 {
		s.add(t, b, alice)
		s.add(t, b, alice)
		s.add(t, b, bob)
	}
	v := s.view("bob")
	all, err := b.ReadView(bob, ChannelJournal, 0, 100, v)
	if err != nil {
		t.Fatal(err)
	}
	wantOwn(t, "read from 0", all, 1, 10)
	tail, _ := b.ReadView(bob, ChannelJournal, 7, 100, v)
	wantOwn(t, "read from 7", tail, 8, 10)
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	since := uint64(3)
	if _, err := c.SubscribeView(bob, ChannelJournal, &since, v); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "replay", func(evs []Event) bool { return len(evs) >= 7 })
	for range 3 {
		s.add(t, b, alice)
		s.add(t, b, bob)
	}
	evs := r.waitFor(t, "live", func(evs []Event) bool { return len(evs) >= 10 })
	wantOwn(t, "subscription from 3", evs, 4, 13)
	// The owner's view, without renumbering, still has the channel's seq.
	whole, _ := b.ReadView(alice, ChannelJournal, 0, 1000, View{})
	if n := len(whole); n == 0 || whole[n-1].Seq != uint64(len(s.evs)) || string(whole[n-1].Payload) != `"global"` {
		t.Fatalf("an unrenumbered read ends at %v (%s), want seq %d with the global payload", seqsOf(whole), whole[len(whole)-1].Payload, len(s.evs))
	}
}

// On a global channel no store numbers (approval), the bus numbers each
// origin scope's events among its own: a reader of its own scope's events
// through ScopeRenumber sees 1, 2, 3… in reads and subscriptions, however
// many other scopes published between; once its scope is forgotten, a
// new session of the same name starts again at 1 and never sees the old
// session's events. A reader without the view sees the channel's seq.
func TestScopeRenumber(t *testing.T) {
	b := New()
	pub := func(s Scope, n int) {
		t.Helper()
		aud := Audience{Scopes: []Scope{s}, Principals: []string{"owner"}}
		if _, err := b.PublishTo(s, ChannelApproval, aud, json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		pub(alice, i)
		pub(alice, i)
		pub(bob, i)
	}
	v := View{Visible: func(o Scope) bool { return o == bob }, Renumber: b.ScopeRenumber(bob, ChannelApproval)}
	evs, err := b.ReadView(bob, ChannelApproval, 0, 100, v)
	if err != nil || fmt.Sprint(seqsOf(evs)) != "[1 2 3 4]" || string(evs[3].Payload) != `{"n":3}` {
		t.Fatalf("bob's read: %v %v", err, seqsOf(evs))
	}
	evs, _ = b.ReadView(bob, ChannelApproval, 2, 100, v)
	if fmt.Sprint(seqsOf(evs)) != "[3 4]" {
		t.Fatalf("bob's read since 2: %v", seqsOf(evs))
	}
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	since := uint64(3)
	if _, err := c.SubscribeView(bob, ChannelApproval, &since, v); err != nil {
		t.Fatal(err)
	}
	pub(alice, 9)
	pub(bob, 4)
	got := r.waitFor(t, "bob's subscription", func(evs []Event) bool { return len(evs) >= 2 })
	if fmt.Sprint(seqsOf(got)) != "[4 5]" {
		t.Fatalf("bob's subscription from 3: %v", seqsOf(got))
	}
	all := b.Read(Scope{Principal: "owner", Session: "x"}, ChannelApproval, 0, 100)
	if n := len(all); n != 14 || all[n-1].Seq != 14 {
		t.Fatalf("the owner reads %v", seqsOf(all))
	}
	b.ForgetScope(bob)
	pub(bob, 100)
	evs, _ = b.ReadView(bob, ChannelApproval, 0, 100, v)
	if fmt.Sprint(seqsOf(evs)) != "[1]" || string(evs[0].Payload) != `{"n":100}` {
		t.Fatalf("a new bob session reads %v", seqsOf(evs))
	}
}
