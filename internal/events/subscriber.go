package events

import (
	"fmt"
	"sync"
	"time"
)

// Subscriber holds the subscriptions of one client connection, all
// writing to the same sink (the connection's outbox), so the kernel can
// unsubscribe by channel name and close them all when the connection
// ends. It is safe for concurrent use.
type Subscriber struct {
	bus  *Bus
	sink Sink

	mu     sync.Mutex
	subs   map[subKey]*Subscription
	closed bool
}

type subKey struct {
	viewer  Scope
	channel string
}

// NewSubscriber returns an empty group whose subscriptions deliver to
// sink. The sink is called from several goroutines at once (one per
// subscription) and must be safe for that.
func (b *Bus) NewSubscriber(sink Sink) *Subscriber {
	return &Subscriber{bus: b, sink: sink, subs: make(map[subKey]*Subscription)}
}

// Subscribe is Bus.Subscribe with the group's sink. Subscribing again to
// the same channel as the same viewer replaces the earlier subscription,
// so a connection holds at most one per channel and viewer. A refused
// subscribe changes nothing.
func (c *Subscriber) Subscribe(viewer Scope, channel string, since *uint64) (*Subscription, error) {
	return c.subscribe(viewer, channel, cursorFrom(since))
}

// Resume is Subscribe from a cursor a client carried over, possibly from
// an earlier kernel whose numbering this one does not share. A cursor
// within the stream replays what follows it. On a scoped channel, a
// cursor ahead of the stream continues the numbering after it when the
// stream has no events yet (and the cursor is at most MaxSeedSeq), and
// replays every retained event otherwise. Whatever is decided happens
// only when the subscribe succeeds.
func (c *Subscriber) Resume(viewer Scope, channel string, since uint64) (*Subscription, error) {
	return c.subscribe(viewer, channel, cursorSpec{since: since, resume: true})
}

func (c *Subscriber) subscribe(viewer Scope, channel string, at cursorSpec) (*Subscription, error) {
	if err := checkChannel(channel); err != nil {
		return nil, err
	}
	key := subKey{viewer, channel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("subscribe to %q: %w", channel, ErrClosed)
	}
	old := c.subs[key]
	if old == nil && len(c.subs) >= MaxSubscriptionsPerSubscriber {
		return nil, fmt.Errorf("subscribe to %q: %w", channel, ErrTooManySubscriptions)
	}
	s, err := c.bus.subscribe(viewer, channel, at, c.sink, c, old)
	if err != nil {
		return nil, err
	}
	c.subs[key] = s
	return s, nil
}

// Unsubscribe closes every subscription of the group to channel and
// reports whether there was one.
func (c *Subscriber) Unsubscribe(channel string) bool {
	var gone []*Subscription
	c.mu.Lock()
	for k, s := range c.subs {
		if k.channel == channel {
			gone = append(gone, s)
			delete(c.subs, k)
		}
	}
	c.mu.Unlock()
	for _, s := range gone {
		s.stop(false)
	}
	return len(gone) > 0
}

// Finish is Unsubscribe for a channel whose last events must reach the
// sink before anything the caller sends next: each of the group's
// subscriptions to channel first hands its sink every event the channel
// held when Finish was called, then ends, and Finish returns once no
// sink call of theirs is in progress. It waits at most wait in all; past
// that the subscriptions end where they are. It reports whether there
// was a subscription.
func (c *Subscriber) Finish(channel string, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	var subs []*Subscription
	c.mu.Lock()
	for k, s := range c.subs {
		if k.channel == channel {
			subs = append(subs, s)
		}
	}
	c.mu.Unlock()
	for _, s := range subs {
		s.drain(deadline)
	}
	found := c.Unsubscribe(channel)
	for _, s := range subs {
		wait := time.Until(deadline)
		if wait <= 0 {
			break
		}
		timer := time.NewTimer(wait)
		select {
		case <-s.done:
			timer.Stop()
		case <-timer.C:
		}
	}
	return found
}

// Len returns the number of live subscriptions in the group.
func (c *Subscriber) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.subs)
}

// Close closes every subscription and refuses new ones. It does not wait
// for sink calls in progress (see Subscription.Done).
func (c *Subscriber) Close() {
	c.mu.Lock()
	c.closed = true
	gone := make([]*Subscription, 0, len(c.subs))
	for k, s := range c.subs {
		gone = append(gone, s)
		delete(c.subs, k)
	}
	c.mu.Unlock()
	for _, s := range gone {
		s.stop(false)
	}
}

// forget drops s from the group if it is still the current subscription
// for its key (called when s ends).
func (c *Subscriber) forget(s *Subscription) {
	key := subKey{s.viewer, s.channel}
	c.mu.Lock()
	if c.subs[key] == s {
		delete(c.subs, key)
	}
	c.mu.Unlock()
}
