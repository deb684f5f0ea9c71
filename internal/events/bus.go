package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
)

// Errors returned by the bus.
var (
	// ErrBadChannel reports an empty or over-long channel name.
	ErrBadChannel = errors.New("events: bad channel name")
	// ErrNotGlobal reports SetFilter on a scoped channel.
	ErrNotGlobal = errors.New("events: channel is not global")
	// ErrClosed reports Subscribe on a closed Subscriber.
	ErrClosed = errors.New("events: subscriber closed")
	// ErrTooManySubscriptions reports a Subscriber already holding
	// MaxSubscriptionsPerSubscriber subscriptions.
	ErrTooManySubscriptions = errors.New("events: too many subscriptions")
)

// A publish or subscribe refused by a budget of Limits fails with a
// *budget.ExceededError (errors.Is budget.ErrExceeded) whose Name is one
// of the Budget* constants and whose Limit is its size (bytes, or
// channels).

var nullPayload = json.RawMessage("null")

// Bus holds every stream of a kernel. It is safe for concurrent use; the
// zero value is not usable, call New.
//
// One mutex guards every stream, ring and subscription cursor: a publish
// may drop events of other streams and other scopes to stay within the
// budgets, and sinks run outside it.
type Bus struct {
	now func() int64
	lim Limits

	mu      sync.Mutex
	scopes  map[Scope]*scopeState
	globals *scopeState // journal and approval, fixed at New
	total   int64       // bytes retained by every stream
	tick    uint64      // recency and publish-order clock

	obsMu     sync.Mutex
	observers atomic.Pointer[[]*observer]
}

// scopeState is the streams of one scope and what they retain.
type scopeState struct {
	streams map[string]*stream
	counted int   // streams counted against ScopeChannels
	bytes   int64 // retained by its streams
	// lruOldest and lruNewest end the list of counted streams in lastUse
	// order (stream.older, stream.newer).
	lruOldest, lruNewest *stream
}

// touch stamps st as used at tick and moves it to the newest end of its
// scope's recency list when it is counted.
func (sc *scopeState) touch(st *stream, tick uint64) {
	st.lastUse = tick
	if !countsAgainstScope(st.channel) || sc.lruNewest == st {
		return
	}
	sc.unlink(st)
	st.older = sc.lruNewest
	if sc.lruNewest != nil {
		sc.lruNewest.newer = st
	} else {
		sc.lruOldest = st
	}
	sc.lruNewest = st
}

// unlink takes st out of the recency list (a no-op when it is not in it).
func (sc *scopeState) unlink(st *stream) {
	if st.older != nil {
		st.older.newer = st.newer
	} else if sc.lruOldest == st {
		sc.lruOldest = st.newer
	}
	if st.newer != nil {
		st.newer.older = st.older
	} else if sc.lruNewest == st {
		sc.lruNewest = st.older
	}
	st.older, st.newer = nil, nil
}

type observer struct{ fn func(Scope, Event) }

// Option configures a Bus.
type Option func(*Bus)

// WithClock makes the bus stamp events with now (nanoseconds since the
// Unix epoch) instead of the wall clock.
func WithClock(now func() int64) Option {
	return func(b *Bus) { b.now = now }
}

// WithLimits sets the retention budgets (DefaultLimits otherwise; a
// budget left at zero keeps its default).
func WithLimits(l Limits) Option {
	return func(b *Bus) { b.lim = l.withDefaults() }
}

// New returns an empty bus.
func New(opts ...Option) *Bus {
	b := &Bus{
		now:    func() int64 { return time.Now().UnixNano() },
		lim:    DefaultLimits(),
		scopes: make(map[Scope]*scopeState),
	}
	b.globals = &scopeState{streams: map[string]*stream{}}
	for _, ch := range []string{ChannelJournal, ChannelApproval} {
		b.globals.streams[ch] = &stream{channel: ch, global: true, scope: b.globals}
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Limits returns the bus's budgets.
func (b *Bus) Limits() Limits { return b.lim }

// SetFilter installs the visibility filter of a global channel (nil
// removes it). The journal's filter should let a reader see only rows it
// may read.
func (b *Bus) SetFilter(channel string, f Filter) error {
	st := b.globals.streams[channel]
	if st == nil {
		return fmt.Errorf("set filter on %q: %w", channel, ErrNotGlobal)
	}
	b.mu.Lock()
	st.filter = f
	b.mu.Unlock()
	return nil
}

// Publish appends payload to channel in scope and wakes the channel's
// subscribers without waiting for any of them, then calls the OnPublish
// observers. On a global channel scope is only the origin: a journal
// event goes to every reader its filter admits, an approval event only to
// scope itself (use PublishTo to name the approvers). The bus keeps
// payload; the caller must not modify it afterwards. A nil payload is
// JSON null.
//
// Publish fails with a *budget.ExceededError, changing nothing, when the
// event is larger than a byte budget on its own, or when channel would be a new
// stream in a scope whose every stream has subscribers (ScopeChannels).
func (b *Bus) Publish(scope Scope, channel string, payload json.RawMessage) (Event, error) {
	var aud *Audience
	if channel == ChannelApproval {
		aud = &Audience{Scopes: []Scope{scope}}
	}
	return b.publish(scope, channel, payload, aud, true, 0, 0, 0, nil)
}

// PublishTo publishes on a global channel for aud only; origin is passed
// to observers. On a scoped channel the audience is meaningless (the
// stream is private to origin) and PublishTo is Publish.
func (b *Bus) PublishTo(origin Scope, channel string, aud Audience, payload json.RawMessage) (Event, error) {
	return b.publish(origin, channel, payload, &aud, true, 0, 0, 0, nil)
}

// Inject is Publish without calling the OnPublish observers, for events
// that arrive from the bridged language bus and must not echo back.
func (b *Bus) Inject(scope Scope, channel string, payload json.RawMessage) (Event, error) {
	var aud *Audience
	if channel == ChannelApproval {
		aud = &Audience{Scopes: []Scope{scope}}
	}
	return b.publish(scope, channel, payload, aud, false, 0, 0, 0, nil)
}

// publish appends payload to channel; seq 0 numbers it one above the
// stream's last, another seq must be above the last (PublishAt), and ts 0
// stamps it now. scopeSeq and scopePayload are the event's ScopeSeq and
// ScopePayload (PublishAtScoped).
func (b *Bus) publish(scope Scope, channel string, payload json.RawMessage, aud *Audience, notify bool, seq, scopeSeq uint64, ts int64, scopePayload json.RawMessage) (Event, error) {
	if err := checkChannel(channel); err != nil {
		return Event{}, err
	}
	if payload == nil {
		payload = nullPayload
	}
	size := int64(len(payload)+len(scopePayload)) + RecordOverhead
	if err := b.checkSize(size); err != nil {
		return Event{}, err
	}
	b.mu.Lock()
	st, err := b.streamLocked(scope, channel, true)
	if err != nil {
		b.mu.Unlock()
		return Event{}, err
	}
	switch {
	case seq == 0 && st.seq >= MaxSeq, seq > MaxSeq:
		b.mu.Unlock()
		return Event{}, &budget.ExceededError{Name: "seq", Limit: MaxSeq, Reason: "channel " + channel + " has used every sequence number"}
	case seq == 0:
		seq = st.seq + 1
	case seq <= st.seq:
		b.mu.Unlock()
		return Event{}, fmt.Errorf("publish %s seq %d after %d: %w", channel, seq, st.seq, ErrSeqOrder)
	}
	if !st.global {
		aud = nil
	} else if scopeSeq == 0 {
		if st.own == nil {
			st.own = map[Scope]uint64{}
		}
		st.own[scope]++
		scopeSeq = st.own[scope]
	}
	st.seq = seq
	b.tick++
	if ts == 0 {
		ts = b.now()
	}
	ev := Event{Channel: channel, Seq: seq, TS: ts, Payload: payload, ScopeSeq: scopeSeq, ScopePayload: scopePayload}
	st.push(record{ev: ev, aud: aud, origin: scope, size: size, order: b.tick})
	st.scope.touch(st, b.tick)
	st.bytes += size
	st.scope.bytes += size
	b.total += size
	b.retainLocked(st)
	for _, sub := range st.subs {
		sub.signal()
	}
	b.mu.Unlock()
	if notify {
		if obs := b.observers.Load(); obs != nil {
			for _, o := range *obs {
				o.fn(scope, ev)
			}
		}
	}
	return ev, nil
}

// checkSize refuses an event that no byte budget could retain.
func (b *Bus) checkSize(size int64) error {
	for _, bound := range []struct {
		name  string
		limit int64
	}{{BudgetChannelBytes, b.lim.ChannelBytes}, {BudgetScopeBytes, b.lim.ScopeBytes}, {BudgetTotalBytes, b.lim.TotalBytes}} {
		if size > bound.limit {
			return &budget.ExceededError{Name: bound.name, Limit: bound.limit,
				Reason: fmt.Sprintf("an event of %d bytes is larger than the budget", size)}
		}
	}
	return nil
}

// retainLocked drops the oldest events until st, its scope and the bus
// are within their budgets. The event just added to st is the newest
// everywhere and fits every budget alone, so it is kept.
func (b *Bus) retainLocked(st *stream) {
	for st.n > RingSize || st.bytes > b.lim.ChannelBytes {
		b.dropOldestLocked(st)
	}
	for st.scope.bytes > b.lim.ScopeBytes {
		b.dropOldestLocked(st.scope.oldest())
	}
	for b.total > b.lim.TotalBytes {
		b.dropOldestLocked(b.largestScopeLocked().oldest())
	}
}

// dropOldestLocked drops the oldest event of st, counting it as dropped
// for every subscription that has not received it.
func (b *Bus) dropOldestLocked(st *stream) {
	r := st.pop()
	st.bytes -= r.size
	st.scope.bytes -= r.size
	b.total -= r.size
	for _, sub := range st.subs {
		sub.lostLocked(&r)
	}
}

// largestScopeLocked returns the scope (or the global streams) retaining
// the most bytes.
func (b *Bus) largestScopeLocked() *scopeState {
	best := b.globals
	for _, sc := range b.scopes {
		if sc.bytes > best.bytes {
			best = sc
		}
	}
	return best
}

// oldest returns the stream of sc holding sc's oldest event; sc retains
// something.
func (sc *scopeState) oldest() *stream {
	var best *stream
	for _, st := range sc.streams {
		if st.n > 0 && (best == nil || st.at(0).order < best.at(0).order) {
			best = st
		}
	}
	return best
}

// Read returns the events of channel that viewer may see with
// seq > since, oldest first, keeping the newest limit of them. A limit of
// zero or less, or above MaxReadLimit, means MaxReadLimit. A channel
// nobody has published on reads as empty; the result is never nil.
func (b *Bus) Read(viewer Scope, channel string, since uint64, limit int) []Event {
	if limit <= 0 || limit > MaxReadLimit {
		limit = MaxReadLimit
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st, _ := b.streamLocked(viewer, channel, false)
	if st == nil {
		return []Event{}
	}
	return st.collect(viewer, since, limit, nil, false)
}

// LatestSeq returns the newest seq of channel in scope, 0 when nothing
// has been published there.
func (b *Bus) LatestSeq(scope Scope, channel string) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	st, _ := b.streamLocked(scope, channel, false)
	if st == nil {
		return 0
	}
	return st.seq
}

// Seed raises the sequence of channel in scope so the next event gets a
// seq above seq, for channels whose numbering must continue across a
// kernel restart (journal, session.transcript). A lower seq is ignored,
// and seq is capped at MaxSeedSeq. Seeding a channel that would be a new
// stream in a full scope fails like Publish.
func (b *Bus) Seed(scope Scope, channel string, seq uint64) error {
	if err := checkChannel(channel); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st, err := b.streamLocked(scope, channel, true)
	if err != nil {
		return err
	}
	st.seq = max(st.seq, min(seq, MaxSeedSeq))
	return nil
}

// RetainedBytes reports the bytes retained by scope's streams and by
// every stream (tests, diagnostics).
func (b *Bus) RetainedBytes(scope Scope) (inScope, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if sc := b.scopes[scope]; sc != nil {
		inScope = sc.bytes
	}
	return inScope, b.total
}

// OnPublish registers fn to be called, on the publisher's goroutine and
// after the event is retained, for every Publish and PublishTo (not
// Inject). fn must not block. The returned func unregisters it.
func (b *Bus) OnPublish(fn func(Scope, Event)) (remove func()) {
	o := &observer{fn: fn}
	b.obsMu.Lock()
	defer b.obsMu.Unlock()
	var next []*observer
	if cur := b.observers.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, o)
	b.observers.Store(&next)
	return func() {
		b.obsMu.Lock()
		defer b.obsMu.Unlock()
		cur := b.observers.Load()
		if cur == nil {
			return
		}
		var kept []*observer
		for _, x := range *cur {
			if x != o {
				kept = append(kept, x)
			}
		}
		b.observers.Store(&kept)
	}
}

// ForgetScope drops the streams of scope that have no subscribers, for
// when a session ends. Their sequences restart at 1 if used again, and so
// does its own numbering on global channels (ScopeRenumber), whose
// retained events of scope it no longer shows.
func (b *Bus) ForgetScope(scope Scope) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, st := range b.globals.streams {
		if _, ok := st.own[scope]; !ok {
			continue
		}
		delete(st.own, scope)
		for i := range st.n {
			if r := st.at(i); r.origin == scope {
				r.forgotten = true
			}
		}
	}
	sc := b.scopes[scope]
	if sc == nil {
		return
	}
	for _, st := range sc.streams {
		if len(st.subs) == 0 {
			b.forgetLocked(st)
		}
	}
	if len(sc.streams) == 0 {
		delete(b.scopes, scope)
	}
}

// forgetLocked removes st, which has no subscribers, from its scope.
func (b *Bus) forgetLocked(st *stream) {
	sc := st.scope
	sc.bytes -= st.bytes
	b.total -= st.bytes
	if countsAgainstScope(st.channel) {
		sc.counted--
		sc.unlink(st)
	}
	delete(sc.streams, st.channel)
	st.clear()
}

// countsAgainstScope reports whether channel counts against
// ScopeChannels: user.* and task.N do, the kernel's two fixed streams of
// every scope (render, session.transcript) do not.
func countsAgainstScope(channel string) bool {
	return channel != ChannelRender && channel != ChannelTranscript
}

// streamLocked finds the stream of channel for scope, creating it when
// create is set. Creating a counted stream in a scope at ScopeChannels
// forgets the least recently used one without subscribers, or fails with
// a *budget.ExceededError when each has subscribers. Without create it
// returns nil for a stream that does not exist.
func (b *Bus) streamLocked(scope Scope, channel string, create bool) (*stream, error) {
	if IsGlobal(channel) { // the globals map holds these two alone, fixed at New
		return b.globals.streams[channel], nil
	}
	sc := b.scopes[scope]
	if sc != nil {
		if st := sc.streams[channel]; st != nil {
			return st, nil
		}
	}
	if !create {
		return nil, nil
	}
	if sc == nil {
		sc = &scopeState{streams: map[string]*stream{}}
		b.scopes[scope] = sc
	}
	counted := countsAgainstScope(channel)
	if counted && sc.counted >= b.lim.ScopeChannels {
		victim := sc.idlest()
		if victim == nil {
			if len(sc.streams) == 0 {
				delete(b.scopes, scope)
			}
			return nil, &budget.ExceededError{Name: BudgetScopeChannels, Limit: int64(b.lim.ScopeChannels),
				Reason: fmt.Sprintf("this session already has %d channels, each with subscribers", sc.counted)}
		}
		b.forgetLocked(victim)
	}
	st := &stream{channel: channel, scope: sc}
	sc.streams[channel] = st
	if counted {
		sc.counted++
		sc.touch(st, b.tick)
	}
	return st, nil
}

// idlest returns the least recently used counted stream of sc without
// subscribers, or nil.
func (sc *scopeState) idlest() *stream {
	for st := sc.lruOldest; st != nil; st = st.newer {
		if len(st.subs) == 0 {
			return st
		}
	}
	return nil
}
