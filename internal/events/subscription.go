package events

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrSinkFull is returned (wrapped or not) by a Sink that cannot take an
// event now. The subscription keeps its place and offers the event again
// after RetryDelay, doubling up to MaxRetryDelay while the sink stays
// full; if the event is dropped from retention meanwhile, a dropped marker
// takes its place. It does not end the subscription.
var ErrSinkFull = errors.New("events: sink full")

// Subscription delivers one channel's events, as one viewer sees them, to
// a Sink on its own goroutine. It holds no queue of its own: it keeps a
// cursor into the stream's retained events, so a subscriber that lags
// costs nothing beyond what the channel retains anyway. Events dropped
// from retention before it received them are reported, in order, by one
// dropped marker.
type Subscription struct {
	bus     *Bus
	st      *stream
	viewer  Scope
	channel string
	sink    Sink
	group   *Subscriber // nil when made by Bus.Subscribe
	view    View        // narrowing and backfill (SubscribeView)

	wake     chan struct{} // capacity 1: an event was published, or closed
	stopc    chan struct{} // closed by stop
	stopOnce sync.Once
	done     chan struct{} // closed when the delivery goroutine has returned

	// Guarded by bus.mu.
	cursor   uint64 // seq of the last event delivered or accounted for
	inflight uint64 // seq of the event in the sink, 0 when none
	dropped  uint64 // events lost since the cursor, not yet reported
	latest   uint64 // seq of the newest of them
	closed   bool
	err      error
	// With view.Backfill: pending holds events read from the store, not
	// yet delivered (at most ReplayBatch); once they are, the cursor
	// moves on to skipTo, the end of the range the store was asked about
	// when it had nothing more. synced is set once the store has been
	// asked, so a stream with nothing retained is checked once.
	pending []Event
	skipTo  uint64
	synced  bool
	// moved, when not nil, is closed (and cleared) the next time the
	// cursor moves: Drain waits on it.
	moved chan struct{}
}

// Subscribe delivers channel's events as viewer sees them to sink. With a
// non-nil since, retained events with seq > *since are delivered first;
// live events follow with no gap and no duplicate. With nil since
// delivery starts at the next publish. Close the subscription to stop it.
// Subscribing to a channel that would be a new stream in a full scope
// fails with a *budget.ExceededError.
func (b *Bus) Subscribe(viewer Scope, channel string, since *uint64, sink Sink) (*Subscription, error) {
	return b.subscribe(viewer, channel, cursorFrom(since), sink, nil, nil)
}

// cursorSpec says where a new subscription starts.
type cursorSpec struct {
	since  uint64
	live   bool // start after the newest event
	resume bool // since may be from an earlier kernel (see Subscriber.Resume)
	view   View // SubscribeView
}

func cursorFrom(since *uint64) cursorSpec {
	if since == nil {
		return cursorSpec{live: true}
	}
	return cursorSpec{since: *since}
}

func (b *Bus) subscribe(viewer Scope, channel string, at cursorSpec, sink Sink, group *Subscriber, replace *Subscription) (*Subscription, error) {
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
		view:    at.view,
		wake:    make(chan struct{}, 1),
		stopc:   make(chan struct{}),
		done:    make(chan struct{}),
	}
	b.mu.Lock()
	st, err := b.streamLocked(viewer, channel, true)
	if err != nil {
		b.mu.Unlock()
		return nil, fmt.Errorf("subscribe to %q: %w", channel, err)
	}
	// Nothing has been refused past this point.
	if replace != nil {
		replace.shutLocked()
	}
	s.st = st
	s.cursor = st.startCursor(at)
	st.subs = append(st.subs, s)
	b.tick++
	st.scope.touch(st, b.tick)
	b.mu.Unlock()
	if replace != nil {
		replace.wakeStopped()
	}
	go s.run()
	return s, nil
}

// startCursor places a new subscription's cursor. A resumed cursor ahead
// of the stream comes from before a kernel restart (events live in
// memory, so numbering began again): on a stream with no events yet
// numbering continues after it, so the client sees seqs keep rising; on
// one that has events, every retained event is delivered rather than
// skipped. A plain cursor ahead of the stream waits for the next event.
func (st *stream) startCursor(at cursorSpec) uint64 {
	switch {
	case at.live:
		return st.seq
	case at.view.Backfill != nil:
		return at.since // the store numbers the channel: since is exact
	case at.since <= st.seq:
		return at.since
	case at.resume && !st.global && st.seq == 0 && at.since <= MaxSeedSeq:
		st.seq = at.since
		return at.since
	case at.resume && !st.global:
		return 0
	}
	return st.seq
}

func checkChannel(channel string) error {
	if channel == "" || len(channel) > MaxChannelName {
		return fmt.Errorf("channel %q: %w", channel, ErrBadChannel)
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
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	return s.err
}

// Close stops the subscription: nothing more is delivered, and the
// goroutine returns after any sink call in progress. It does not wait;
// use Done for that. Close is idempotent.
func (s *Subscription) Close() { s.stop(true) }

// stop closes s; unlink also removes it from its Subscriber, which a
// Subscriber holding its own lock has already done.
func (s *Subscription) stop(unlink bool) {
	s.bus.mu.Lock()
	s.shutLocked()
	s.bus.mu.Unlock()
	if unlink && s.group != nil {
		s.group.forget(s)
	}
	s.wakeStopped()
}

// shutLocked marks s closed and detaches it from its stream.
func (s *Subscription) shutLocked() {
	s.closed = true
	s.movedLocked()
	s.st.removeSub(s)
}

// wakeStopped lets the goroutine of a closed subscription see it.
func (s *Subscription) wakeStopped() {
	s.stopOnce.Do(func() { close(s.stopc) })
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// lostLocked accounts for r, dropped from retention: if s had not
// received it and may see it, it is reported by the next marker.
func (s *Subscription) lostLocked(r *record) {
	if s.view.Backfill != nil {
		return // the store still has it
	}
	if seq := r.ev.Seq; seq > s.cursor && seq != s.inflight && s.sees(r) {
		s.dropped++
		s.latest = max(s.latest, seq)
	}
}

// sees reports whether s may see r.
func (s *Subscription) sees(r *record) bool {
	return s.st.visible(s.viewer, r) && (s.view.Visible == nil || s.view.Visible(r.origin)) &&
		!(r.forgotten && s.view.Renumber != nil)
}

// offer is what the goroutine hands the sink next.
type offer struct {
	ev            Event
	marker        bool
	stored        bool   // from pending, read from the store
	count, latest uint64 // for a marker: what it reports
}

// next waits for something to deliver: a marker for lost events first,
// then the oldest retained event after the cursor. ok is false once s is
// closed.
func (s *Subscription) next() (o offer, ok bool) {
	b := s.bus
	for {
		b.mu.Lock()
		if s.closed {
			b.mu.Unlock()
			return offer{}, false
		}
		if s.dropped > 0 {
			o = offer{ev: droppedEvent(s.channel, s.dropped, s.latest, b.now()), marker: true, count: s.dropped, latest: s.latest}
			b.mu.Unlock()
			return o, true
		}
		if s.view.Backfill != nil {
			if o, ok, again := s.backfillLocked(); again {
				b.mu.Unlock()
				continue // the lock was let go: look again
			} else if ok {
				b.mu.Unlock()
				return o, true
			}
		}
		st := s.st
		for i := st.search(s.cursor + 1); i < st.n; i++ {
			r := st.at(i)
			if s.sees(r) {
				s.inflight = r.ev.Seq
				o = offer{ev: r.ev}
				b.mu.Unlock()
				return o, true
			}
			s.cursor = r.ev.Seq // not for this viewer: step over it
		}
		s.movedLocked()
		b.mu.Unlock()
		select {
		case <-s.wake:
		case <-s.stopc:
		}
	}
}

// delivered moves the cursor past what the sink took.
func (s *Subscription) delivered(o offer) {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	defer s.movedLocked()
	if o.marker {
		s.dropped -= o.count
		s.cursor = max(s.cursor, o.latest)
		if s.dropped == 0 {
			s.latest = 0
		}
		return
	}
	if o.stored && len(s.pending) > 0 && s.pending[0].Seq == o.ev.Seq {
		s.pending[0] = Event{}
		s.pending = s.pending[1:]
	}
	s.cursor = max(s.cursor, o.ev.Seq)
	s.inflight = 0
}

// movedLocked wakes a Drain waiting for the cursor to move.
func (s *Subscription) movedLocked() {
	if s.moved != nil {
		close(s.moved)
		s.moved = nil
	}
}

// drain waits until s has handed its sink every event its stream held
// when drain was called (events the viewer may not see are stepped over,
// lost ones reported), until s is closed, or until deadline, whichever
// comes first.
func (s *Subscription) drain(deadline time.Time) {
	b := s.bus
	b.mu.Lock()
	target := s.st.seq
	for !s.closed && (s.cursor < target || s.dropped > 0) {
		if s.moved == nil {
			s.moved = make(chan struct{})
		}
		moved := s.moved
		b.mu.Unlock()
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		timer := time.NewTimer(wait)
		select {
		case <-moved:
			timer.Stop()
		case <-timer.C:
			return
		}
		b.mu.Lock()
	}
	b.mu.Unlock()
}

// refused undoes the offer of an event the sink could not take; if the
// event was dropped from retention meanwhile, it is now counted lost.
func (s *Subscription) refused(o offer) {
	if o.marker {
		return // the marker is rebuilt, with anything lost since, next time
	}
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	s.inflight = 0
	if s.view.Backfill != nil {
		return // still pending, or back in the store if dropped
	}
	if !s.st.retains(o.ev.Seq) && o.ev.Seq > s.cursor {
		s.dropped++
		s.latest = max(s.latest, o.ev.Seq)
	}
}

// run is the delivery goroutine.
func (s *Subscription) run() {
	defer close(s.done)
	delay := time.Duration(0)
	for {
		o, ok := s.next()
		if !ok {
			return
		}
		ev := o.ev
		switch {
		case s.view.Renumber == nil:
		case o.marker:
			ev = droppedEvent(s.channel, 0, 0, ev.TS)
		default:
			ev = s.view.renumbered(ev)
		}
		err := s.sink(ev)
		switch {
		case err == nil:
			s.delivered(o)
			delay = 0
		case errors.Is(err, ErrSinkFull):
			s.refused(o)
			delay = min(max(2*delay, RetryDelay), MaxRetryDelay)
			select {
			case <-s.stopc:
				return
			case <-time.After(delay):
			}
		default:
			s.bus.mu.Lock()
			s.err = fmt.Errorf("deliver %s event: %w", s.channel, err)
			s.bus.mu.Unlock()
			s.stop(true)
			return
		}
	}
}

// backfillLocked is next's step for a subscription with a Backfill, with
// bus.mu held: the next pending event (ok), or, when the ring does not
// cover what follows the cursor, one query of the store, made with the
// lock let go (again: the caller must look afresh, the lock held again).
// Neither: the ring covers the cursor and next reads it.
func (s *Subscription) backfillLocked() (o offer, ok, again bool) {
	if len(s.pending) > 0 {
		ev := s.pending[0]
		s.inflight = ev.Seq
		return offer{ev: ev, stored: true}, true, false
	}
	s.pending = nil
	if s.skipTo > s.cursor {
		s.cursor = s.skipTo
	}
	s.skipTo = 0
	st := s.st
	oldest, top := st.oldestSeq(), st.seq
	if !(oldest > s.cursor+1 || oldest == 0 && (top > s.cursor || !s.synced)) {
		s.synced = true
		return offer{}, false, false
	}
	// Every event up to bound is in the store: the ring holds events only
	// after the store has them.
	bound := top
	if oldest != 0 {
		bound = oldest - 1
	}
	q := BackfillQuery{After: s.cursor, Before: oldest, Limit: ReplayBatch}
	b := s.bus
	b.mu.Unlock()
	evs, more, err := s.view.Backfill(q)
	b.mu.Lock()
	if s.closed {
		return offer{}, false, true
	}
	s.synced = true
	if err != nil {
		if bound > s.cursor { // reported as lost: at most this many
			s.dropped += bound - s.cursor
			s.latest = max(s.latest, bound)
		}
		return offer{}, false, true
	}
	for len(evs) > 0 && evs[0].Seq <= s.cursor {
		evs = evs[1:]
	}
	s.pending = evs
	if !more || len(evs) == 0 {
		s.skipTo = bound
	}
	return offer{}, false, true
}
