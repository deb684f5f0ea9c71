package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

func ptr(v uint64) *uint64 { return &v }

func TestSubscribeReplayThenLive(t *testing.T) {
	tests := []struct {
		name    string
		before  int     // events published before subscribing
		since   *uint64 // nil: live only
		during  int     // events published concurrently with Subscribe
		wantMin uint64  // first seq expected
	}{
		{"live only", 10, nil, 100, 11},
		{"replay all", 10, ptr(0), 100, 1},
		{"replay tail", 100, ptr(50), 100, 51},
		{"cursor ahead", 5, ptr(5), 50, 6},
		{"empty channel", 0, ptr(0), 50, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New()
			for i := range tt.before {
				b.Publish(alice, "task.3", num(i))
			}
			r := newRecorder()
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range tt.during {
					b.Publish(alice, "task.3", num(i))
				}
			}()
			close(start)
			sub, err := b.Subscribe(alice, "task.3", tt.since, r.sink)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			wg.Wait()
			b.Publish(alice, "task.3", nil) // surely after registration
			last := uint64(tt.before + tt.during + 1)
			got := seqs(r.waitFor(t, "all events", lastSeq(last)))
			if tt.since == nil {
				// Live only: whatever was published after registration,
				// contiguous up to the end.
				if len(got) == 0 || got[0] < tt.wantMin {
					t.Fatalf("live subscription got %v", head(got))
				}
				tt.wantMin = got[0]
			}
			if !slices.Equal(got, seqRange(tt.wantMin, last)) {
				t.Fatalf("got %v… (%d events), want %d..%d with no gap or duplicate", head(got), len(got), tt.wantMin, last)
			}
		})
	}
}

func TestReplayDeliversEverythingRetained(t *testing.T) {
	b := New()
	for i := range RingSize + 10 {
		b.Publish(alice, "user.big", num(i))
	}
	r := newRecorder()
	sub, err := b.Subscribe(alice, "user.big", ptr(0), r.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	// What was dropped before subscribing is not reported: the replay is
	// the retained tail, 11..1034.
	got := r.waitFor(t, "replay", lastSeq(RingSize+10))
	if !slices.Equal(seqs(got), seqRange(11, RingSize+10)) {
		t.Fatalf("replayed %v… (%d)", head(seqs(got)), len(got))
	}
}

// TestLaggingSubscriberExactCounts stalls a sink on its first event while
// the ring overflows: the stalled event is still delivered, then one
// marker reports exactly the events dropped before they were received,
// then the retained rest.
func TestLaggingSubscriberExactCounts(t *testing.T) {
	b := New()
	entered := make(chan struct{})
	gate := make(chan struct{})
	r := newRecorder()
	var once sync.Once
	sink := func(ev Event) error {
		once.Do(func() { close(entered); <-gate })
		return r.sink(ev)
	}
	sub, err := b.Subscribe(alice, "user.x", nil, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	b.Publish(alice, "user.x", num(1)) // taken by the goroutine, stuck in the sink
	<-entered
	const extra = 37
	for i := range RingSize + extra {
		b.Publish(alice, "user.x", num(i+2))
	}
	close(gate)
	last := uint64(1 + RingSize + extra)
	got := r.waitFor(t, "everything", lastSeq(last))
	if len(got) != RingSize+2 || got[0].Seq != 1 {
		t.Fatalf("delivered %d events starting %v", len(got), head(seqs(got)))
	}
	if d := dropped(t, got[1]); d != (Dropped{Count: extra, LatestSeq: extra + 1}) {
		t.Fatalf("marker %+v, want {%d %d}", d, extra, extra+1)
	}
	if ev := got[1]; ev.Channel != "user.x" || ev.TS == 0 {
		t.Errorf("marker envelope %+v", ev)
	}
	if !slices.Equal(seqs(got[2:]), seqRange(extra+2, last)) {
		t.Fatalf("after the marker %v…", head(seqs(got[2:])))
	}
	// Delivery resumes normally afterwards.
	b.Publish(alice, "user.x", nil)
	r.waitFor(t, "resume", lastSeq(last+1))
}

// TestSinkFullKeepsItsPlace: a sink that answers ErrSinkFull is offered
// the same event again later, losing nothing while the event is
// retained; an event dropped while it was refused is reported by a marker.
func TestSinkFullKeepsItsPlace(t *testing.T) {
	t.Run("nothing dropped", func(t *testing.T) {
		b := New()
		r := newRecorder()
		var mu sync.Mutex
		refusals := 0
		sink := func(ev Event) error {
			mu.Lock()
			defer mu.Unlock()
			if refusals < 5 {
				refusals++
				return fmt.Errorf("outbox: %w", ErrSinkFull)
			}
			return r.sink(ev)
		}
		sub, err := b.Subscribe(alice, "user.x", nil, sink)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		for i := range 50 {
			b.Publish(alice, "user.x", num(i))
		}
		got := r.waitFor(t, "all 50", lastSeq(50))
		if !slices.Equal(seqs(got), seqRange(1, 50)) {
			t.Fatalf("got %v", seqs(got))
		}
		if sub.Err() != nil {
			t.Errorf("ErrSinkFull ended the subscription: %v", sub.Err())
		}
	})
	t.Run("the refused event is dropped", func(t *testing.T) {
		b := New(WithLimits(Limits{ChannelBytes: 10 * RecordOverhead}))
		r := newRecorder()
		refused := make(chan struct{})
		var full sync.Mutex
		full.Lock() // held: the sink is full
		sink := func(ev Event) error {
			if !full.TryLock() {
				select {
				case refused <- struct{}{}:
				default:
				}
				return ErrSinkFull
			}
			full.Unlock()
			return r.sink(ev)
		}
		sub, err := b.Subscribe(alice, "user.x", nil, sink)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		b.Publish(alice, "user.x", nil)
		<-refused
		for range 30 { // the ring keeps 9 of these (null payloads)
			b.Publish(alice, "user.x", nil)
		}
		full.Unlock()
		got := r.waitFor(t, "the end", lastSeq(31))
		if d := dropped(t, got[0]); d.Count != 31-uint64(len(got)-1) || d.LatestSeq != got[1].Seq-1 {
			t.Fatalf("marker %+v before %v", d, seqs(got[1:]))
		}
		if !slices.Equal(seqs(got[1:]), seqRange(got[1].Seq, 31)) {
			t.Fatalf("after the marker %v", seqs(got[1:]))
		}
	})
}

// TestOverflowAccounting runs a jittery sink against a fast publisher and
// checks that every event is either delivered or counted in exactly one
// marker that sits where the gap is.
func TestOverflowAccounting(t *testing.T) {
	b := New()
	r := newRecorder()
	rng := rand.New(rand.NewPCG(1, 2))
	var rngMu sync.Mutex
	sink := func(ev Event) error {
		rngMu.Lock()
		slow := rng.IntN(50) == 0
		rngMu.Unlock()
		if slow {
			time.Sleep(200 * time.Microsecond)
		}
		return r.sink(ev)
	}
	sub, err := b.Subscribe(alice, "task.9", ptr(0), sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	const total = 20000
	for i := range total {
		b.Publish(alice, "task.9", num(i))
	}
	got := r.waitFor(t, "everything accounted", func(evs []Event) bool {
		var n uint64
		for _, ev := range evs {
			if ev.Synthetic() {
				var d Dropped
				_ = json.Unmarshal(ev.Payload, &d)
				n += d.Count
			} else {
				n++
			}
		}
		return n == total
	})
	var prev uint64 // seq of the last real event, or the last marker's latest_seq
	markers := 0
	for i, ev := range got {
		if ev.Synthetic() {
			d := dropped(t, ev)
			if d.Count == 0 || d.LatestSeq != prev+d.Count {
				t.Fatalf("event %d: marker %+v after seq %d", i, d, prev)
			}
			prev = d.LatestSeq
			markers++
			continue
		}
		if ev.Seq != prev+1 {
			t.Fatalf("event %d: seq %d after %d without a marker", i, ev.Seq, prev)
		}
		prev = ev.Seq
	}
	t.Logf("%d events as %d deliveries with %d markers", total, len(got), markers)
}

func TestPublisherNeverBlocks(t *testing.T) {
	b := New()
	stuck := make(chan struct{})
	defer close(stuck)
	blocker := func(Event) error { <-stuck; return nil }
	var subs []*Subscription
	for range 3 {
		s, err := b.Subscribe(alice, "render", ptr(0), blocker)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	healthy := newRecorder()
	hs, err := b.Subscribe(alice, "render", nil, healthy.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()

	const total = 10 * RingSize
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range total {
			b.Publish(alice, "render", num(i))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish blocked behind a stuck sink")
	}
	// Reads are not held up either.
	if got := b.Read(alice, "render", 0, 0); len(got) != RingSize {
		t.Errorf("read %d events", len(got))
	}
	healthy.waitFor(t, "healthy subscriber caught up", lastSeq(total))
}

func TestUnsubscribeStopsDelivery(t *testing.T) {
	b := New()
	r := newRecorder()
	c := b.NewSubscriber(r.sink)
	defer c.Close()
	sub, err := c.Subscribe(alice, "user.a", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Subscribe(alice, "user.b", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Publish(alice, "user.a", nil)
	r.waitFor(t, "first event", lastSeq(1))

	if !c.Unsubscribe("user.a") {
		t.Fatal("Unsubscribe found no subscription")
	}
	if c.Unsubscribe("user.a") {
		t.Error("second Unsubscribe found one")
	}
	<-sub.Done()
	for range 10 {
		b.Publish(alice, "user.a", nil)
	}
	b.Publish(alice, "user.b", nil)
	r.waitFor(t, "user.b event", func(evs []Event) bool { return len(evs) >= 2 })
	time.Sleep(10 * time.Millisecond)
	got := r.events()
	if len(got) != 2 || got[0].Channel != "user.a" || got[1].Channel != "user.b" {
		t.Fatalf("after unsubscribe got %+v", got)
	}
	if c.Len() != 1 {
		t.Errorf("Len = %d, want 1", c.Len())
	}
	other.Close()
	other.Close() // idempotent
	<-other.Done()
	if c.Len() != 0 {
		t.Errorf("closed subscription still in group: Len %d", c.Len())
	}
}

func TestSubscriberRules(t *testing.T) {
	b := New()
	r := newRecorder()
	c := b.NewSubscriber(r.sink)

	first, err := c.Subscribe(alice, "user.a", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Subscribe(alice, "user.a", ptr(0))
	if err != nil {
		t.Fatal(err)
	}
	<-first.Done() // replaced
	b.Publish(alice, "user.a", nil)
	r.waitFor(t, "one event", lastSeq(1))
	time.Sleep(10 * time.Millisecond)
	if n := len(r.events()); n != 1 {
		t.Errorf("resubscribe delivered %d copies", n)
	}
	if c.Len() != 1 {
		t.Errorf("Len = %d", c.Len())
	}

	for i := 1; i < MaxSubscriptionsPerSubscriber; i++ {
		if _, err := c.Subscribe(alice, TaskChannel(uint64(i)), nil); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	if _, err := c.Subscribe(alice, "user.over", nil); !errors.Is(err, ErrTooManySubscriptions) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := c.Subscribe(alice, "user.a", nil); err != nil { // replacing is not growth
		t.Errorf("replace at the limit: %v", err)
	}
	if _, err := c.Subscribe(alice, "", nil); !errors.Is(err, ErrBadChannel) {
		t.Errorf("empty channel: %v", err)
	}
	c.Close()
	<-second.Done()
	if _, err := c.Subscribe(alice, "user.a", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if c.Len() != 0 {
		t.Errorf("Len after Close = %d", c.Len())
	}
	if _, err := b.Subscribe(alice, "user.a", nil, nil); err == nil {
		t.Error("nil sink accepted")
	}
}

func TestSinkErrorEndsSubscription(t *testing.T) {
	b := New()
	boom := errors.New("outbox full")
	calls := 0
	c := b.NewSubscriber(func(Event) error { calls++; return boom })
	defer c.Close()
	sub, err := c.Subscribe(alice, "user.a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Publish(alice, "user.a", nil)
	<-sub.Done()
	if !errors.Is(sub.Err(), boom) {
		t.Errorf("Err = %v", sub.Err())
	}
	b.Publish(alice, "user.a", nil)
	if calls != 1 {
		t.Errorf("sink called %d times", calls)
	}
	if c.Len() != 0 {
		t.Errorf("failed subscription still in group")
	}
}

// settledGoroutines waits for goroutines left by earlier tests to exit
// and returns the count once it holds steady.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(5 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

func TestNoGoroutineLeak(t *testing.T) {
	before := settledGoroutines()
	b := New()
	var groups []*Subscriber
	var subs []*Subscription
	for g := range 10 {
		c := b.NewSubscriber(newRecorder().sink)
		groups = append(groups, c)
		for ch := range 5 {
			s, err := c.Subscribe(Scope{"p", string(rune('a' + g))}, TaskChannel(uint64(ch)), ptr(0))
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, s)
		}
	}
	for i := range 1000 {
		b.Publish(Scope{"p", string(rune('a' + i%10))}, TaskChannel(uint64(i%5)), nil)
	}
	if n := runtime.NumGoroutine(); n < len(subs)+1 {
		t.Fatalf("%d goroutines for %d subscriptions; want one each", n, len(subs))
	}
	for _, c := range groups {
		c.Close()
	}
	for _, s := range subs {
		select {
		case <-s.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("subscription goroutine did not exit")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after Close", before, runtime.NumGoroutine())
		}
		time.Sleep(time.Millisecond)
	}
}
