package events

import (
	"fmt"
	"sync"
)

// Subscription delivers one channel's events, as one viewer sees them, to
// a Sink on its own goroutine. Its queue holds QueueSize events; events
// that find it full are counted and reported by a single dropped marker.
type Subscription struct {
	bus     *Bus
	st      *stream
	viewer  Scope
	channel string
	sink    Sink
	group   *Subscriber // nil when made by Bus.Subscribe

	wake chan struct{} // capacity 1: the queue became non-empty, or closed
	done chan struct{} // closed when the delivery goroutine has returned

	mu      sync.Mutex
	q       [QueueSize]Event
	head, n int
	dropped uint64 // events not queued since the last marker
	latest  uint64 // seq of the newest of them
	closed  bool
	err     error
}

// Subscribe delivers channel's events as viewer sees them to sink. With a
// non-nil since, retained events with seq > *since are queued first; live
// events follow with no gap and no duplicate. With nil since delivery
// starts at the next publish. Close the subscription to stop it.
func (b *Bus) Subscribe(viewer Scope, channel string, since *uint64, sink Sink) (*Subscription, error) {
	return b.subscribe(viewer, channel, since, sink, nil)
}

func (b *Bus) subscribe(viewer Scope, channel string, since *uint64, sink Sink, group *Subscriber) (*Subscription, error) {
	if err := checkChannel(channel); err != nil {
		return nil, err
	}
	if sink == nil {
		return nil, fmt.Errorf("subscribe to %q: nil sink", channel)
	}
	s := &Subscription{
		bus:     b,
		viewer:  viewer,
		channel: channel,
		sink:    sink,
		group:   group,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	for {
		st := b.lookup(viewer, channel, true)
		st.mu.Lock()
		if st.dead {
			st.mu.Unlock()
			continue
		}
		s.st = st
		if since != nil {
			for _, ev := range st.collect(viewer, *since, RingSize) {
				s.enqueue(ev)
			}
		}
		st.subs = append(st.subs, s)
		st.lastUse = b.tick.Add(1)
		st.mu.Unlock()
		break
	}
	go s.run()
	return s, nil
}

func checkChannel(channel string) error {
	if channel == "" || len(channel) > MaxChannelName {
		return fmt.Errorf("subscribe to %q: %w", channel, ErrBadChannel)
	}
	return nil
}

// Channel returns the subscribed channel name.
func (s *Subscription) Channel() string { return s.channel }

// Viewer returns the scope the subscription sees the channel as.
func (s *Subscription) Viewer() Scope { return s.viewer }

// Done is closed once the delivery goroutine has returned: after Close
// (and any sink call in progress), or after the sink failed.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns the sink error that ended the subscription, if any.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the subscription: nothing more is queued, queued events
// are discarded, and the goroutine returns after any sink call in
// progress. It does not wait; use Done for that. Close is idempotent.
func (s *Subscription) Close() { s.stop(true) }

// stop closes s; unlink also removes it from its Subscriber, which a
// Subscriber holding its own lock has already done.
func (s *Subscription) stop(unlink bool) {
	s.st.mu.Lock()
	s.st.removeSub(s)
	s.st.mu.Unlock()
	if unlink && s.group != nil {
		s.group.forget(s)
	}
	s.mu.Lock()
	s.shutLocked()
	s.mu.Unlock()
	s.signal()
}

// enqueue queues ev, or counts it as dropped when the queue is full or a
// marker is already owed (so the marker stays ahead of later events).
// The caller holds the stream's lock, which orders enqueues by seq.
func (s *Subscription) enqueue(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.dropped > 0 || s.n == QueueSize {
		s.dropped++
		s.latest = ev.Seq
		s.mu.Unlock()
		return
	}
	s.push(ev)
	first := s.n == 1
	s.mu.Unlock()
	if first {
		s.signal()
	}
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// push and pop work the queue ring; the caller holds s.mu.
func (s *Subscription) push(ev Event) {
	i := s.head + s.n
	if i >= QueueSize {
		i -= QueueSize
	}
	s.q[i] = ev
	s.n++
}

func (s *Subscription) pop() Event {
	ev := s.q[s.head]
	s.q[s.head] = Event{}
	s.head++
	if s.head == QueueSize {
		s.head = 0
	}
	s.n--
	return ev
}

// run is the delivery goroutine.
func (s *Subscription) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for s.n == 0 && !s.closed {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		ev := s.pop()
		if s.dropped > 0 {
			// The slot just freed goes to the marker; everything queued
			// before it is older than what it reports.
			s.push(droppedEvent(s.channel, s.dropped, s.latest, s.bus.now()))
			s.dropped, s.latest = 0, 0
		}
		s.mu.Unlock()
		if err := s.sink(ev); err != nil {
			s.mu.Lock()
			s.err = fmt.Errorf("deliver %s event: %w", s.channel, err)
			s.mu.Unlock()
			s.stop(true)
			return
		}
	}
}

// shutLocked marks s closed and drops its queue; the caller holds s.mu.
func (s *Subscription) shutLocked() {
	s.closed = true
	s.q = [QueueSize]Event{}
	s.head, s.n, s.dropped, s.latest = 0, 0, 0, 0
}
