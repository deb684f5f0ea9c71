package events

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// addOrSkip keeps an event in the store and publishes it, as the kernel
// does, only when the bus does not let it skip it unwatched.
func (s *store) addOrSkip(t *testing.T, b *Bus, origin Scope, channel string) (skipped bool) {
	t.Helper()
	ev := s.keep(origin, channel)
	if b.SkipUnwatched(origin, channel, ev.Seq) {
		return true
	}
	if _, err := b.PublishAt(origin, channel, nil, ev.Seq, ev.TS, ev.Payload); err != nil {
		t.Fatalf("PublishAt %d: %v", ev.Seq, err)
	}
	return false
}

// TestSkipUnwatched: with nobody subscribed a durable event is skipped,
// the ring lets go of what it held and the seq moves on; reads rebuild
// every event from the store (and ask it nothing when there is nothing
// newer); a subscription made afterwards gets the skipped events from the
// store and the live ones after them, each once, in order, and while it
// follows nothing is skipped.
func TestSkipUnwatched(t *testing.T) {
	b := New()
	s := &store{}
	for range 3 {
		s.add(t, b, alice, ChannelTranscript) // retained
	}
	for i := range 4 {
		if !s.addOrSkip(t, b, alice, ChannelTranscript) {
			t.Fatalf("event %d not skipped with nobody subscribed", 4+i)
		}
	}
	if got := b.Read(alice, ChannelTranscript, 0, 0); len(got) != 0 {
		t.Fatalf("the ring still holds %v after a skip", seqsOf(got))
	}
	if in, _ := b.RetainedBytes(alice); in != 0 {
		t.Fatalf("%d bytes still charged after a skip", in)
	}
	if got := b.LatestSeq(alice, ChannelTranscript); got != 7 {
		t.Fatalf("LatestSeq = %d, want 7", got)
	}
	// seq not above the last: not skipped (PublishAt refuses it).
	if b.SkipUnwatched(alice, ChannelTranscript, 7) || b.SkipUnwatched(alice, ChannelTranscript, MaxSeq+1) {
		t.Fatal("a seq PublishAt refuses was skipped")
	}
	v := View{Backfill: s.backfill(nil)}
	evs, err := b.ReadView(alice, ChannelTranscript, 0, 0, v)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, "read after skips", evs, s, 1, 7, nil)
	q := s.queries
	if evs, err := b.ReadView(alice, ChannelTranscript, 7, 0, v); err != nil || len(evs) != 0 || s.queries != q {
		t.Fatalf("read since the last: %v, %v, %d queries of the store; want none", seqsOf(evs), err, s.queries-q)
	}
	if evs, err := b.ReadView(alice, ChannelTranscript, 5, 0, v); err != nil {
		t.Fatal(err)
	} else {
		checkRun(t, "read since 5", evs, s, 6, 7, nil)
	}

	var mu sync.Mutex
	var got []Event
	c := b.NewSubscriber(func(ev Event) error {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
		return nil
	})
	defer c.Close()
	since := uint64(2)
	if _, err := c.SubscribeView(alice, ChannelTranscript, &since, v); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if s.addOrSkip(t, b, alice, ChannelTranscript) {
			t.Fatalf("event %d skipped while a subscription follows", 8+i)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("have %d events, want 8", n)
		}
	}
	time.Sleep(20 * time.Millisecond) // nothing more may come
	mu.Lock()
	defer mu.Unlock()
	checkRun(t, "subscription", got, s, 3, 10, nil)
	if evs := b.Read(alice, ChannelTranscript, 0, 0); fmt.Sprint(seqsOf(evs)) != "[8 9 10]" {
		t.Fatalf("ring %v, want [8 9 10]", seqsOf(evs))
	}
}
