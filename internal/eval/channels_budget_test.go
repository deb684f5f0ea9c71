package eval

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/value"
)

func wantQuota(t *testing.T, what string, err error) {
	t.Helper()
	var ve *value.Error
	if !errors.As(err, &ve) || ve.Code != budget.CodeQuotaExceeded {
		t.Fatalf("%s: got %v, want quota_exceeded", what, err)
	}
}

// heldCheck recomputes what the bus holds and compares it with its
// accounts and bounds.
func heldCheck(t *testing.T, b *Channels) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var rings, queues int64
	for name, c := range b.chans {
		var rb int64
		for _, ev := range c.ring {
			rb += ev.size
		}
		if rb != c.ringBytes || rb > ChannelRingBytes || len(c.ring) > ChannelRing {
			t.Errorf("%s: ring %d bytes (account %d), %d events", name, rb, c.ringBytes, len(c.ring))
		}
		rings += rb
		for _, s := range c.subs {
			for _, ev := range s.queue {
				queues += ev.size
			}
		}
	}
	if rings != b.rings || rings+queues != b.held || b.held > ChannelMemory {
		t.Errorf("rings %d (account %d), queues %d, held %d, budget %d", rings, b.rings, queues, b.held, ChannelMemory)
	}
}

func TestChannelRingBytes(t *testing.T) {
	b := newSession(t).in.Channels()
	big := value.Str(strings.Repeat("x", 300<<10))
	for range 40 {
		if err := b.Emit("big", big, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	heldCheck(t, b)
	b.mu.Lock()
	n := len(b.chans["big"].ring)
	b.mu.Unlock()
	if n != int(ChannelRingBytes/eventSize(big, ChannelRingBytes)) {
		t.Errorf("ring keeps %d events of 300 KiB", n)
	}
	if b.Latest("big") == nil {
		t.Error("the newest event was not kept")
	}
}

func TestChannelMemoryDropsOldestAcrossChannels(t *testing.T) {
	b := newSession(t).in.Channels()
	v := value.Str(strings.Repeat("y", 1<<20))
	for i := range 64 {
		if err := b.Emit(fmt.Sprintf("c%d", i), v, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	heldCheck(t, b)
	if b.Latest("c0") != nil || b.Latest("c63") == nil {
		t.Error("not the oldest events dropped")
	}
}

func TestChannelEventTooLarge(t *testing.T) {
	b := newSession(t).in.Channels()
	var fwd int
	b.SetForwarder(func(string, value.Value) error { fwd++; return nil })
	err := b.Emit("user.huge", value.Str(strings.Repeat("z", ChannelRingBytes+1)), time.Now())
	wantQuota(t, "oversized emit", err)
	if fwd != 0 || b.Latest("user.huge") != nil {
		t.Errorf("a refused emit went somewhere: forwarded %d", fwd)
	}
	// A deep value is measured without recursion and stops at the limit.
	var deep value.Value = value.Str("leaf")
	for range 1_000_000 {
		deep = value.NewList([]value.Value{deep})
	}
	if n := eventSize(deep, 1<<20); n <= 1<<20 {
		t.Errorf("deep value measured %d bytes", n)
	}
}

// TestChannelEventSizeIsTheFootprint: an event is charged what its
// payload keeps alive, so one string shared a hundred times is counted
// once, and fits where a hundred copies would not.
func TestChannelEventSizeIsTheFootprint(t *testing.T) {
	shared := value.Str(strings.Repeat("s", 1<<20))
	items := make([]value.Value, 100)
	for i := range items {
		items[i] = shared
	}
	list := value.NewList(items)
	if got, want := eventSize(list, ChannelRingBytes), channelEventOverhead+value.Footprint(list, 0); got != want {
		t.Errorf("eventSize %d, footprint plus overhead %d", got, want)
	}
	if got := eventSize(list, ChannelRingBytes); got > 2<<20 {
		t.Errorf("a string shared 100 times measured %d bytes", got)
	}
	if err := newSession(t).in.Channels().Emit("shared", list, time.Now()); err != nil {
		t.Errorf("emit of a shared 1 MiB string: %v", err)
	}
}

func TestForwarderRefusalRefusesTheEmit(t *testing.T) {
	s := newSession(t)
	b := s.in.Channels()
	b.SetForwarder(func(string, value.Value) error {
		return errorf(budget.CodeQuotaExceeded, "kernel bus full")
	})
	_, err := s.eval(`channel("user.x").emit(1)`)
	wantQuota(t, "emit refused by the kernel", err)
	if b.Latest("user.x") != nil {
		t.Error("refused emit published locally")
	}
	if _, err := s.eval(`channel("local").emit(1)`); err != nil {
		t.Errorf("non-bridged channel: %v", err)
	}
}

func TestChannelSubscribersBounded(t *testing.T) {
	b := newSession(t).in.Channels()
	var subs []*chanSub
	for i := range MaxChannelSubs {
		s, err := b.subscribe(fmt.Sprintf("ch%d", i%50), false, 0)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	_, err := b.subscribe("more", false, 0)
	wantQuota(t, "one subscriber too many", err)
	subs[0].close()
	subs[0].close() // idempotent: counted once
	if _, err := b.subscribe("more", false, 0); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	if _, err := b.subscribe("more2", false, 0); err == nil {
		t.Fatal("a double close freed two places")
	}
}

// TestLaggingSubscriberQueueBounded: a subscriber that never reads holds
// at most what the session budget allows, then misses events (reported
// by a marker); closing it gives the memory back.
func TestLaggingSubscriberQueueBounded(t *testing.T) {
	s := newSession(t)
	b := s.in.Channels()
	sub, err := b.subscribe("q", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		v := value.Str(strings.Repeat("q", 512<<10) + fmt.Sprint(i))
		if err := b.Emit("q", v, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	heldCheck(t, b)
	b.mu.Lock()
	dropped := sub.dropped
	b.mu.Unlock()
	if dropped == 0 {
		t.Error("the lagging subscriber missed nothing")
	}
	sub.close()
	heldCheck(t, b)
	b.mu.Lock()
	queued := b.held - b.rings
	b.mu.Unlock()
	if queued != 0 {
		t.Errorf("%d bytes still charged for a closed subscriber", queued)
	}
}

func TestChannelBudgetsConcurrent(t *testing.T) {
	s := newSession(t)
	b := s.in.Channels()
	th := &thread{in: s.in, ctx: t.Context(), host: s.h}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 300 {
				v := value.Str(strings.Repeat("c", (i%7+1)*40<<10))
				if err := b.Emit(fmt.Sprintf("ch%d", (g+i)%5), v, time.Now()); err != nil {
					var ve *value.Error
					if !errors.As(err, &ve) || ve.Code != budget.CodeQuotaExceeded {
						t.Error(err)
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			sub, err := b.subscribe(fmt.Sprintf("ch%d", g), true, -1)
			if err != nil {
				t.Error(err)
				return
			}
			defer sub.close()
			for range 100 {
				if _, _, _, err := sub.next(th, time.Millisecond); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	heldCheck(t, b)
}
