package events

import (
	"fmt"
	"sync"
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
// the same channel as the same viewer first closes the earlier
// subscription, so a connection holds at most one per channel and viewer.
func (c *Subscriber) Subscribe(viewer Scope, channel string, since *uint64) (*Subscription, error) {
	if err := checkChannel(channel); err != nil {
		return nil, err
	}
	key := subKey{viewer, channel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("subscribe to %q: %w", channel, ErrClosed)
	}
	if old := c.subs[key]; old != nil {
		delete(c.subs, key)
		old.stop(false)
	} else if len(c.subs) >= MaxSubscriptionsPerSubscriber {
		return nil, fmt.Errorf("subscribe to %q: %w", channel, ErrTooManySubscriptions)
	}
	s, err := c.bus.subscribe(viewer, channel, since, c.sink, c)
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
