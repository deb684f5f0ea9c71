package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// store plays a durable store that numbers a channel: an event is kept
// in it before it is published with its seq, as the kernel's journal
// does.
type store struct {
	mu      sync.Mutex
	evs     []Event
	origins []Scope
	queries int
	fail    error
}

// keep numbers the next event from origin and keeps it in the store.
func (s *store) keep(origin Scope, channel string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := uint64(len(s.evs) + 1)
	ev := Event{Channel: channel, Seq: seq, TS: int64(1000 + seq), Payload: json.RawMessage(fmt.Sprintf(`{"n":%d,"who":%q}`, seq, origin.Principal))}
	s.evs = append(s.evs, ev)
	s.origins = append(s.origins, origin)
	return ev
}

// add keeps an event from origin in the store and publishes it.
func (s *store) add(t *testing.T, b *Bus, origin Scope, channel string) Event {
	t.Helper()
	ev := s.keep(origin, channel)
	got, err := b.PublishAt(origin, channel, nil, ev.Seq, ev.TS, ev.Payload)
	if err != nil {
		t.Fatalf("PublishAt %d: %v", ev.Seq, err)
	}
	if got.Seq != ev.Seq || got.TS != ev.TS || string(got.Payload) != string(ev.Payload) {
		t.Fatalf("PublishAt gave %+v, want %+v", got, ev)
	}
	return ev
}

// backfill answers as the store, for a reader that sees what vis admits.
func (s *store) backfill(vis func(Scope) bool) Backfill {
	return func(q BackfillQuery) ([]Event, bool, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.queries++
		if s.fail != nil {
			return nil, false, s.fail
		}
		var in []Event
		for i, ev := range s.evs {
			if ev.Seq > q.After && (q.Before == 0 || ev.Seq < q.Before) && (vis == nil || vis(s.origins[i])) {
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
	}
}

func seqsOf(evs []Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

// checkRun checks that evs are exactly the store's events from..to of the
// principals vis admits, payloads and timestamps included.
func checkRun(t *testing.T, what string, evs []Event, s *store, from, to uint64, vis func(Scope) bool) {
	t.Helper()
	var want []Event
	s.mu.Lock()
	for i, ev := range s.evs {
		if ev.Seq >= from && ev.Seq <= to && (vis == nil || vis(s.origins[i])) {
			want = append(want, ev)
		}
	}
	s.mu.Unlock()
	if len(evs) != len(want) {
		t.Fatalf("%s: seqs %v, want %v", what, seqsOf(evs), seqsOf(want))
	}
	for i := range want {
		if evs[i].Seq != want[i].Seq || evs[i].TS != want[i].TS || string(evs[i].Payload) != string(want[i].Payload) || evs[i].Channel != want[i].Channel {
			t.Fatalf("%s: event %d = %+v, want %+v", what, i, evs[i], want[i])
		}
	}
}

// smallRing retains about keep events of the test payloads per stream.
func smallRing(keep int) Option {
	return WithLimits(Limits{ChannelBytes: int64(keep) * (RecordOverhead + 32)})
}

func TestPublishAtOrder(t *testing.T) {
	b := New()
	if _, err := b.PublishAt(alice, ChannelTranscript, nil, 5, 0, nil); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{0, 3, 5} {
		if _, err := b.PublishAt(alice, ChannelTranscript, nil, seq, 0, nil); !errors.Is(err, ErrSeqOrder) {
			t.Errorf("PublishAt %d after 5: %v, want ErrSeqOrder", seq, err)
		}
	}
	if _, err := b.PublishAt(alice, ChannelTranscript, nil, MaxSeq+1, 0, nil); err == nil {
		t.Error("PublishAt past MaxSeq accepted")
	}
	if ev, err := b.PublishAt(alice, ChannelTranscript, nil, 9, 77, nil); err != nil || ev.Seq != 9 || ev.TS != 77 {
		t.Errorf("PublishAt 9 = %+v, %v", ev, err)
	}
	if got := seqsOf(b.Read(alice, ChannelTranscript, 0, 0)); fmt.Sprint(got) != "[5 9]" {
		t.Errorf("read %v, want [5 9]", got)
	}
	// A plain publish continues above.
	if ev, err := b.Publish(alice, ChannelTranscript, nil); err != nil || ev.Seq != 10 {
		t.Errorf("Publish after 9 = %+v, %v", ev, err)
	}
}

// ReadView joins the store's part and the ring's with no gap and no
// duplicate at the seam, keeps since exclusive and the newest limit.
func TestReadViewSeam(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events int
		since  uint64
		limit  int
	}{
		{"everything", 40, 0, 100},
		{"newest tail", 40, 0, 10},
		{"tail reaching into the store", 40, 0, 30},
		{"since in the store", 40, 12, 100},
		{"since in the ring", 40, 37, 100},
		{"since at the end", 40, 40, 100},
		{"empty ring after a restart", 0, 3, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(smallRing(8))
			s := &store{}
			for range tc.events {
				s.add(t, b, alice, ChannelTranscript)
			}
			if tc.events == 0 { // a kernel restarted: the store has it all
				old := New()
				for range 20 {
					s.add(t, old, alice, ChannelTranscript)
				}
			}
			last := uint64(len(s.evs))
			got, err := b.ReadView(alice, ChannelTranscript, tc.since, tc.limit, View{Backfill: s.backfill(nil)})
			if err != nil {
				t.Fatal(err)
			}
			from := tc.since + 1
			if n := last - tc.since; n > uint64(tc.limit) {
				from = last - uint64(tc.limit) + 1
			}
			checkRun(t, "read", got, s, from, last, nil)
		})
	}
}

// Visible narrows both the ring's part and (through the reader's own
// backfill) the store's.
func TestReadViewVisible(t *testing.T) {
	b := New(smallRing(6))
	s := &store{}
	for i := range 30 {
		who := alice
		if i%3 == 0 {
			who = bob
		}
		s.add(t, b, who, ChannelJournal)
	}
	onlyAlice := func(o Scope) bool { return o.Principal == "alice" }
	got, err := b.ReadView(alice, ChannelJournal, 0, 0, View{Visible: onlyAlice, Backfill: s.backfill(onlyAlice)})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, "alice", got, s, 1, 30, onlyAlice)
	got, _ = b.ReadView(alice, ChannelJournal, 0, 5, View{Visible: onlyAlice, Backfill: s.backfill(onlyAlice)})
	checkRun(t, "alice's newest 5", got, s, 24, 30, onlyAlice)
	if len(got) != 5 {
		t.Fatalf("newest 5: %v", seqsOf(got))
	}
	none := func(Scope) bool { return false }
	if got, _ := b.ReadView(alice, ChannelJournal, 0, 0, View{Visible: none, Backfill: s.backfill(none)}); len(got) != 0 {
		t.Errorf("a reader who may see nothing read %v", seqsOf(got))
	}
}

// A subscription from since 0 replays the store's part, then the ring's,
// then live events, as one gapless run, even while its sink refuses
// events long enough for the ring to move on, and never reports a drop.
func TestSubscribeViewReplaysAndLags(t *testing.T) {
	b := New(smallRing(8))
	s := &store{}
	for range 100 {
		s.add(t, b, alice, ChannelTranscript)
	}
	var mu sync.Mutex
	var got []Event
	full := true
	c := b.NewSubscriber(func(ev Event) error {
		mu.Lock()
		defer mu.Unlock()
		if full && len(got) >= 40 {
			return ErrSinkFull
		}
		got = append(got, ev)
		return nil
	})
	defer c.Close()
	zero := uint64(0)
	if _, err := c.SubscribeView(alice, ChannelTranscript, &zero, View{Backfill: s.backfill(nil)}); err != nil {
		t.Fatal(err)
	}
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			l := len(got)
			mu.Unlock()
			if l >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("have %d events, want %d", l, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	wait(40)
	// While the sink is full, the ring moves on by far more than it keeps.
	for range 60 {
		s.add(t, b, alice, ChannelTranscript)
	}
	mu.Lock()
	full = false
	mu.Unlock()
	wait(160)
	for range 5 { // live
		s.add(t, b, alice, ChannelTranscript)
	}
	wait(165)
	time.Sleep(20 * time.Millisecond) // nothing more may come
	mu.Lock()
	defer mu.Unlock()
	checkRun(t, "subscription", got, s, 1, 165, nil)
}

// A since inside the store starts after it; a subscription on an empty
// ring (a restart) asks the store once and then follows live events.
func TestSubscribeViewSince(t *testing.T) {
	b := New(smallRing(8))
	s := &store{}
	old := New()
	for range 10 {
		s.add(t, old, alice, ChannelTranscript)
	}
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	since := uint64(4)
	if _, err := c.SubscribeView(alice, ChannelTranscript, &since, View{Backfill: s.backfill(nil)}); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "replay", func(evs []Event) bool { return len(evs) >= 6 })
	s.add(t, b, alice, ChannelTranscript)
	evs := r.waitFor(t, "live", func(evs []Event) bool { return len(evs) >= 7 })
	checkRun(t, "since 4", evs, s, 5, 11, nil)
	s.mu.Lock()
	q := s.queries
	s.mu.Unlock()
	if q > 3 {
		t.Errorf("%d store queries for one replay and one live event", q)
	}
}

// A store that cannot answer makes one dropped marker covering what it
// could not rebuild; live events follow.
func TestSubscribeViewBackfillError(t *testing.T) {
	b := New(smallRing(4))
	s := &store{}
	for range 20 {
		s.add(t, b, alice, ChannelTranscript)
	}
	s.fail = errors.New("disk on fire")
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	zero := uint64(0)
	if _, err := c.SubscribeView(alice, ChannelTranscript, &zero, View{Backfill: s.backfill(nil)}); err != nil {
		t.Fatal(err)
	}
	s.add(t, b, alice, ChannelTranscript)
	evs := r.waitFor(t, "marker and ring", func(evs []Event) bool { return len(evs) > 0 && evs[len(evs)-1].Seq == 21 })
	if !evs[0].Synthetic() {
		t.Fatalf("first event %+v, want a dropped marker", evs[0])
	}
	var d Dropped
	if err := json.Unmarshal(evs[0].Payload, &d); err != nil || d.LatestSeq+1 != evs[1].Seq || d.Count != d.LatestSeq {
		t.Errorf("marker %s, %v; then seq %d", evs[0].Payload, err, evs[1].Seq)
	}
	for i := 2; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 {
			t.Errorf("ring part has a gap: %v", seqsOf(evs[1:]))
		}
	}
}
