package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
)

// invariants checks the bus's accounting against what its streams hold.
func invariants(t *testing.T, b *Bus) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var total int64
	check := func(name string, sc *scopeState, scoped bool) {
		var bytes int64
		counted := 0
		for ch, st := range sc.streams {
			var sb int64
			for i := range st.n {
				sb += st.at(i).size
				if i > 0 && st.at(i).ev.Seq <= st.at(i-1).ev.Seq {
					t.Errorf("%s %s: seqs out of order", name, ch)
				}
			}
			if sb != st.bytes {
				t.Errorf("%s %s: bytes %d, records hold %d", name, ch, st.bytes, sb)
			}
			if st.n > RingSize || st.bytes > b.lim.ChannelBytes {
				t.Errorf("%s %s: %d events, %d bytes over the channel bounds", name, ch, st.n, st.bytes)
			}
			bytes += sb
			if countsAgainstScope(ch) {
				counted++
			}
		}
		if bytes != sc.bytes {
			t.Errorf("%s: bytes %d, streams hold %d", name, sc.bytes, bytes)
		}
		if scoped && (sc.bytes > b.lim.ScopeBytes || counted != sc.counted || counted > b.lim.ScopeChannels) {
			t.Errorf("%s: %d bytes, %d channels (counted %d) over the scope bounds", name, sc.bytes, counted, sc.counted)
		}
		total += bytes
	}
	check("globals", b.globals, false)
	for scope, sc := range b.scopes {
		check(fmt.Sprint(scope), sc, true)
	}
	if total != b.total || total > b.lim.TotalBytes {
		t.Errorf("total %d, streams hold %d, limit %d", b.total, total, b.lim.TotalBytes)
	}
}

func payload(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`) }

func TestChannelBytesDropsOldest(t *testing.T) {
	const each = 1024
	b := New(WithLimits(Limits{ChannelBytes: 10 * (each + RecordOverhead)}))
	for range 64 {
		published(t)(b.Publish(alice, "user.log", payload(each)))
	}
	invariants(t, b)
	got := seqs(b.Read(alice, "user.log", 0, 0))
	if !slices.Equal(got, seqRange(55, 64)) {
		t.Fatalf("retained %v, want the newest ten", got)
	}
}

func TestScopeBytesDropsOldestAcrossChannels(t *testing.T) {
	const each = 1000
	size := int64(each + RecordOverhead)
	b := New(WithLimits(Limits{ChannelBytes: 8 * size, ScopeBytes: 12 * size}))
	for i := range 30 {
		published(t)(b.Publish(alice, fmt.Sprintf("user.c%d", i%5), payload(each)))
	}
	invariants(t, b)
	inScope, _ := b.RetainedBytes(alice)
	if inScope != 12*size {
		t.Fatalf("scope retains %d, want %d", inScope, 12*size)
	}
	// Events 19..30 (1-based publish order) survive: each channel keeps
	// its share of the newest twelve.
	for c := range 5 {
		var want []uint64
		for i := 18; i < 30; i++ {
			if i%5 == c {
				want = append(want, uint64(i/5+1))
			}
		}
		if got := seqs(b.Read(alice, fmt.Sprintf("user.c%d", c), 0, 0)); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("user.c%d retains %v, want %v", c, got, want)
		}
	}
}

// TestTotalBytesDropsFromTheLargestScope: past the kernel-wide budget the
// scope retaining the most loses its oldest events; a small scope keeps
// its own.
func TestTotalBytesDropsFromTheLargestScope(t *testing.T) {
	const each = 1000
	size := int64(each + RecordOverhead)
	b := New(WithLimits(Limits{ChannelBytes: 100 * size, ScopeBytes: 100 * size, TotalBytes: 20 * size}))
	for range 3 {
		published(t)(b.Publish(bob, "user.mine", payload(each)))
	}
	for range 200 {
		published(t)(b.Publish(alice, "user.flood", payload(each)))
	}
	invariants(t, b)
	if got := seqs(b.Read(bob, "user.mine", 0, 0)); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Errorf("small scope lost events: %v", got)
	}
	if got := b.Read(alice, "user.flood", 0, 0); len(got) != 17 || got[len(got)-1].Seq != 200 {
		t.Errorf("flooding scope retains %d events", len(got))
	}
}

func TestOversizedEventRefused(t *testing.T) {
	b := New(WithLimits(Limits{ChannelBytes: 4096}))
	_, err := b.Publish(alice, "user.x", payload(8192))
	var qe *budget.ExceededError
	if !errors.As(err, &qe) || !errors.Is(err, budget.ErrExceeded) || qe.Name != BudgetChannelBytes || qe.Limit != 4096 {
		t.Fatalf("got %v", err)
	}
	if b.LatestSeq(alice, "user.x") != 0 {
		t.Error("a refused publish used a seq")
	}
	invariants(t, b)
}

// TestScopeChannelsRefusedWhenAllSubscribed: a full scope forgets its
// idlest unsubscribed channel for a new one; when every channel has
// subscribers, publish and subscribe on a new channel are refused and
// nothing changes.
func TestScopeChannelsRefusedWhenAllSubscribed(t *testing.T) {
	b := New(WithLimits(Limits{ScopeChannels: 3}))
	c := b.NewSubscriber(newRecorder().sink)
	defer c.Close()
	for _, ch := range []string{"user.a", "user.b"} {
		if _, err := c.Subscribe(alice, ch, nil); err != nil {
			t.Fatal(err)
		}
	}
	published(t)(b.Publish(alice, "user.idle", nil))
	published(t)(b.Publish(alice, "user.new", nil)) // forgets user.idle
	if b.LatestSeq(alice, "user.idle") != 0 || b.LatestSeq(alice, "user.new") != 1 {
		t.Fatal("the idle channel was not the one forgotten")
	}
	// render and session.transcript are not counted.
	published(t)(b.Publish(alice, ChannelRender, nil))
	published(t)(b.Publish(alice, ChannelTranscript, nil))
	if _, err := c.Subscribe(alice, "user.new", nil); err != nil {
		t.Fatal(err)
	}
	_, err := b.Publish(alice, "user.more", nil)
	var qe *budget.ExceededError
	if !errors.As(err, &qe) || qe.Name != BudgetScopeChannels || qe.Limit != 3 {
		t.Fatalf("publish on a fourth channel: %v", err)
	}
	n := c.Len()
	if _, err := c.Subscribe(alice, "user.more", ptr(0)); !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("subscribe to a fourth channel: %v", err)
	}
	if _, err := c.Resume(alice, "user.more", 5000); !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("resume on a fourth channel: %v", err)
	}
	if c.Len() != n || b.LatestSeq(alice, "user.more") != 0 {
		t.Errorf("a refused subscribe changed something: %d subscriptions, seq %d", c.Len(), b.LatestSeq(alice, "user.more"))
	}
	// Other scopes are unaffected.
	published(t)(b.Publish(bob, "user.more", nil))
	invariants(t, b)
}

func TestResume(t *testing.T) {
	tests := []struct {
		name     string
		before   int    // events already on the channel
		since    uint64 // the carried cursor
		wantNext uint64 // seq of the next published event
		wantFrom uint64 // first seq delivered (the next event when no replay)
	}{
		{"within the stream", 10, 4, 11, 5},
		{"ahead of an empty stream continues numbering", 0, 500, 501, 501},
		{"ahead of a stream with events replays all", 3, 500, 4, 1},
		{"at MaxSeedSeq seeds", 0, MaxSeedSeq, MaxSeedSeq + 1, MaxSeedSeq + 1},
		{"past MaxSeedSeq does not seed", 0, MaxSeq, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New()
			for range tt.before {
				b.Publish(alice, "user.r", nil)
			}
			r := newRecorder()
			c := b.NewSubscriber(r.sink)
			defer c.Close()
			if _, err := c.Resume(alice, "user.r", tt.since); err != nil {
				t.Fatal(err)
			}
			ev := published(t)(b.Publish(alice, "user.r", nil))
			if ev.Seq != tt.wantNext {
				t.Fatalf("next seq %d, want %d", ev.Seq, tt.wantNext)
			}
			got := r.waitFor(t, "the new event", lastSeq(ev.Seq))
			if got[0].Seq != tt.wantFrom {
				t.Errorf("delivery began at %d, want %d", got[0].Seq, tt.wantFrom)
			}
		})
	}
}

func TestResumeRefusedAtSubscriptionLimitDoesNotSeed(t *testing.T) {
	b := New(WithLimits(Limits{ScopeChannels: 2 * MaxSubscriptionsPerSubscriber}))
	c := b.NewSubscriber(newRecorder().sink)
	defer c.Close()
	for i := range MaxSubscriptionsPerSubscriber {
		if _, err := c.Subscribe(alice, TaskChannel(uint64(i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Resume(alice, "user.x", 1<<40); !errors.Is(err, ErrTooManySubscriptions) {
		t.Fatalf("got %v", err)
	}
	if ev := published(t)(b.Publish(alice, "user.x", nil)); ev.Seq != 1 {
		t.Fatalf("refused resume seeded the channel: next seq %d", ev.Seq)
	}
}

func TestSeedIsCapped(t *testing.T) {
	b := New()
	if err := b.Seed(alice, ChannelTranscript, MaxSeq); err != nil {
		t.Fatal(err)
	}
	if ev := published(t)(b.Publish(alice, ChannelTranscript, nil)); ev.Seq != MaxSeedSeq+1 {
		t.Fatalf("seq %d after seeding past the cap", ev.Seq)
	}
}

// TestManyChannelsOfBigPayloads is the attack at bus level:
// 64 KiB payloads over 200 channels used to retain 2 GB per scope.
func TestManyChannelsOfBigPayloads(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes 1.3 GB of payloads")
	}
	b := New()
	p := payload(64 << 10)
	for round := range 100 {
		for ch := range 200 {
			if _, err := b.Publish(alice, fmt.Sprintf("user.c%d", ch), p); err != nil {
				t.Fatalf("round %d channel %d: %v", round, ch, err)
			}
		}
	}
	invariants(t, b)
	inScope, total := b.RetainedBytes(alice)
	if lim := DefaultLimits().ScopeBytes; inScope > lim || total > lim {
		t.Fatalf("retains %d bytes in the scope, %d in all; budget %d", inScope, total, lim)
	}
}

// TestConcurrentBudgets races publishers over many scopes and channels
// against subscribers and readers under small budgets; the accounting
// stays exact and every subscriber accounts for every event.
func TestConcurrentBudgets(t *testing.T) {
	size := int64(200 + RecordOverhead)
	b := New(WithLimits(Limits{ChannelBytes: 20 * size, ScopeChannels: 8, ScopeBytes: 60 * size, TotalBytes: 150 * size}))
	const scopes, perScope = 4, 600
	var subs []*recorder
	var subsDone []*Subscription
	for s := range scopes {
		r := newRecorder()
		refused := map[uint64]bool{}
		sub, err := b.Subscribe(Scope{"p", fmt.Sprint(s)}, "user.watched", ptr(0), func(ev Event) error {
			if ev.Seq%7 == 0 && !refused[ev.Seq] {
				refused[ev.Seq] = true
				return ErrSinkFull // refused once: offered again later
			}
			return r.sink(ev)
		})
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, r)
		subsDone = append(subsDone, sub)
	}
	var wg sync.WaitGroup
	for s := range scopes {
		wg.Add(2)
		sc := Scope{"p", fmt.Sprint(s)}
		go func() {
			defer wg.Done()
			for i := range perScope {
				ch := "user.watched"
				if i%3 != 0 {
					ch = fmt.Sprintf("user.c%d", i%11)
				}
				if _, err := b.Publish(sc, ch, payload(200)); err != nil && !errors.Is(err, budget.ErrExceeded) {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				b.Read(sc, "user.watched", 0, 10)
			}
		}()
	}
	wg.Wait()
	invariants(t, b)
	for s, r := range subs {
		want := b.LatestSeq(Scope{"p", fmt.Sprint(s)}, "user.watched")
		got := r.waitFor(t, "every event accounted", func(evs []Event) bool {
			var n uint64
			for _, ev := range evs {
				if ev.Synthetic() {
					n += dropped(t, ev).Count
				} else {
					n++
				}
			}
			// Refused seqs are offered again (or reported dropped), so
			// everything is eventually accounted.
			return n == want
		})
		var prev uint64
		for _, ev := range got {
			if ev.Synthetic() {
				d := dropped(t, ev)
				if d.LatestSeq != prev+d.Count {
					t.Fatalf("scope %d: marker %+v after %d", s, d, prev)
				}
				prev = d.LatestSeq
				continue
			}
			if ev.Seq != prev+1 {
				t.Fatalf("scope %d: seq %d after %d", s, ev.Seq, prev)
			}
			prev = ev.Seq
		}
	}
	for _, s := range subsDone {
		s.Close()
	}
}
