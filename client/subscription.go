package client

import (
	"context"
	"sync"
)

// Subscription receives the events of one channel. Events arrive on the
// channel returned by Events in kernel order. The client's reader never
// blocks on a slow consumer: once Events' buffer is full, further events
// are coalesced into one overflow marker (see [Event.Dropped]).
//
// With reconnection enabled a Subscription survives connection loss and
// resumes from the last sequence number the client received.
type Subscription struct {
	c       *Client
	channel string
	limit   int
	out     chan Event
	notify  chan struct{}
	done    chan struct{}

	mu        sync.Mutex
	queue     []Event
	lastSeq   uint64
	hasCursor bool // lastSeq is meaningful (a since was given or an event seen)
	closed    bool
	err       error

	// Guarded by Client.mu: the connection the kernel-side subscription
	// lives on, and whether Subscribe is still establishing it (the
	// reconnect loop leaves such subscriptions to Subscribe).
	on      *conn
	initial bool
}

func newSubscription(c *Client, channel string, limit int, since *uint64) *Subscription {
	s := &Subscription{
		c:       c,
		channel: channel,
		limit:   limit,
		out:     make(chan Event),
		notify:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if since != nil {
		s.lastSeq, s.hasCursor = *since, true
	}
	go s.pump()
	return s
}

// Channel returns the subscribed channel name.
func (s *Subscription) Channel() string { return s.channel }

// Events returns the channel of events. It is closed when the
// subscription ends: after Unsubscribe, Close, or (without reconnection)
// connection loss; Err then says why.
func (s *Subscription) Events() <-chan Event { return s.out }

// LastSeq returns the sequence number of the newest event received (or the
// since given to Subscribe, before any event). It is the cursor used to
// resubscribe after a reconnect.
func (s *Subscription) LastSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSeq
}

// Err returns why the subscription ended, or nil while it is live or after
// a plain Unsubscribe.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Unsubscribe ends the subscription; see Client.Unsubscribe.
func (s *Subscription) Unsubscribe(ctx context.Context) error {
	return s.c.Unsubscribe(ctx, s.channel)
}

// cursor returns the since to resubscribe with, or nil for live-only.
func (s *Subscription) cursor() *uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hasCursor {
		return nil
	}
	v := s.lastSeq
	return &v
}

// push queues ev for the consumer; it never blocks. When the queue holds
// limit events, ev is folded into an overflow marker at the tail.
func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	seq := max(ev.Seq, ev.LatestSeq)
	if seq > s.lastSeq || !s.hasCursor {
		s.lastSeq = seq
	}
	s.hasCursor = true
	if len(s.queue) >= s.limit {
		dropped := max(ev.Dropped, 1)
		if n := len(s.queue); n > 0 && s.queue[n-1].IsOverflow() {
			m := &s.queue[n-1]
			m.Dropped += dropped
			m.LatestSeq = max(m.LatestSeq, seq)
			m.Seq, m.TS, m.Payload = ev.Seq, ev.TS, nil
		} else {
			s.queue = append(s.queue, Event{Channel: s.channel, Seq: ev.Seq, TS: ev.TS, Dropped: dropped, LatestSeq: seq})
		}
	} else {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// pump moves queued events to the consumer until the subscription ends.
func (s *Subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.notify:
			case <-s.done:
				return
			}
			s.mu.Lock()
		}
		ev := s.queue[0]
		s.queue[0] = Event{}
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = nil // let a burst's backing array go
		}
		s.mu.Unlock()
		select {
		case s.out <- ev:
		case <-s.done:
			return
		}
	}
}

// end stops the subscription with err (nil for a plain unsubscribe). Any
// events still queued are discarded.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed, s.err, s.queue = true, err, nil
	s.mu.Unlock()
	close(s.done)
}
