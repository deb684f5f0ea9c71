package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
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

var nullPayload = json.RawMessage("null")

// Bus holds every stream of a kernel. It is safe for concurrent use; the
// zero value is not usable, call New.
type Bus struct {
	now func() int64

	mu      sync.RWMutex
	scopes  map[Scope]map[string]*stream
	globals map[string]*stream // fixed at New

	tick atomic.Uint64 // recency clock for eviction

	obsMu     sync.Mutex
	observers atomic.Pointer[[]*observer]
}

type observer struct{ fn func(Scope, Event) }

// Option configures a Bus.
type Option func(*Bus)

// WithClock makes the bus stamp events with now (nanoseconds since the
// Unix epoch) instead of the wall clock.
func WithClock(now func() int64) Option {
	return func(b *Bus) { b.now = now }
}

// New returns an empty bus.
func New(opts ...Option) *Bus {
	b := &Bus{
		now:    func() int64 { return time.Now().UnixNano() },
		scopes: make(map[Scope]map[string]*stream),
		globals: map[string]*stream{
			ChannelJournal:  {channel: ChannelJournal, global: true},
			ChannelApproval: {channel: ChannelApproval, global: true},
		},
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// SetFilter installs the visibility filter of a global channel (nil
// removes it). The journal's filter should let a reader see only rows it
// may read.
func (b *Bus) SetFilter(channel string, f Filter) error {
	st := b.globals[channel]
	if st == nil {
		return fmt.Errorf("set filter on %q: %w", channel, ErrNotGlobal)
	}
	st.mu.Lock()
	st.filter = f
	st.mu.Unlock()
	return nil
}

// Publish appends payload to channel in scope and delivers it to the
// channel's subscribers without waiting for any of them, then calls the
// OnPublish observers. On a global channel scope is only the origin: a
// journal event goes to every reader its filter admits, an approval event
// only to scope itself (use PublishTo to name the approvers). The bus
// keeps payload; the caller must not modify it afterwards. A nil payload
// is JSON null.
func (b *Bus) Publish(scope Scope, channel string, payload json.RawMessage) Event {
	var aud *Audience
	if channel == ChannelApproval {
		aud = &Audience{Scopes: []Scope{scope}}
	}
	return b.publish(scope, channel, payload, aud, true)
}

// PublishTo publishes on a global channel for aud only; origin is passed
// to observers. On a scoped channel the audience is meaningless (the
// stream is private to origin) and PublishTo is Publish.
func (b *Bus) PublishTo(origin Scope, channel string, aud Audience, payload json.RawMessage) Event {
	return b.publish(origin, channel, payload, &aud, true)
}

// Inject is Publish without calling the OnPublish observers, for events
// that arrive from the bridged language bus and must not echo back.
func (b *Bus) Inject(scope Scope, channel string, payload json.RawMessage) Event {
	var aud *Audience
	if channel == ChannelApproval {
		aud = &Audience{Scopes: []Scope{scope}}
	}
	return b.publish(scope, channel, payload, aud, false)
}

func (b *Bus) publish(scope Scope, channel string, payload json.RawMessage, aud *Audience, notify bool) Event {
	if payload == nil {
		payload = nullPayload
	}
	var ev Event
	for {
		st := b.lookup(scope, channel, true)
		st.mu.Lock()
		if st.dead {
			st.mu.Unlock()
			continue
		}
		if !st.global {
			aud = nil
		}
		st.seq++
		ev = Event{Channel: channel, Seq: st.seq, TS: b.now(), Payload: payload}
		r := record{ev: ev, aud: aud}
		st.add(r)
		st.lastUse = b.tick.Add(1)
		for _, sub := range st.subs {
			if st.visible(sub.viewer, &r) {
				sub.enqueue(ev)
			}
		}
		st.mu.Unlock()
		break
	}
	if notify {
		if obs := b.observers.Load(); obs != nil {
			for _, o := range *obs {
				o.fn(scope, ev)
			}
		}
	}
	return ev
}

// Read returns the events of channel that viewer may see with
// seq > since, oldest first, keeping the newest limit of them. A limit of
// zero or less, or above MaxReadLimit, means MaxReadLimit. A channel
// nobody has published on reads as empty; the result is never nil.
func (b *Bus) Read(viewer Scope, channel string, since uint64, limit int) []Event {
	if limit <= 0 || limit > MaxReadLimit {
		limit = MaxReadLimit
	}
	st := b.lookup(viewer, channel, false)
	if st == nil {
		return []Event{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.collect(viewer, since, limit)
}

// LatestSeq returns the newest seq of channel in scope, 0 when nothing
// has been published there.
func (b *Bus) LatestSeq(scope Scope, channel string) uint64 {
	st := b.lookup(scope, channel, false)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.seq
}

// Seed raises the sequence of channel in scope so the next event gets a
// seq above seq, for channels whose numbering must continue across a
// kernel restart (journal, session.transcript). A lower seq is ignored.
func (b *Bus) Seed(scope Scope, channel string, seq uint64) {
	for {
		st := b.lookup(scope, channel, true)
		st.mu.Lock()
		if st.dead {
			st.mu.Unlock()
			continue
		}
		st.seq = max(st.seq, seq)
		st.mu.Unlock()
		return
	}
}

// OnPublish registers fn to be called, on the publisher's goroutine and
// after the event is delivered to the queues, for every Publish and
// PublishTo (not Inject). fn must not block. The returned func
// unregisters it.
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
// when a session ends. Their sequences restart at 1 if used again.
func (b *Bus) ForgetScope(scope Scope) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.scopes[scope]
	for name, st := range m {
		st.mu.Lock()
		if len(st.subs) == 0 {
			st.dead = true
			delete(m, name)
		}
		st.mu.Unlock()
	}
	if len(m) == 0 {
		delete(b.scopes, scope)
	}
}

// lookup finds the stream of channel for scope, creating it when create
// is set; it returns nil only when create is false.
func (b *Bus) lookup(scope Scope, channel string, create bool) *stream {
	if st := b.globals[channel]; st != nil {
		return st
	}
	b.mu.RLock()
	st := b.scopes[scope][channel]
	b.mu.RUnlock()
	if st != nil || !create {
		return st
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.scopes[scope]
	if m == nil {
		m = make(map[string]*stream)
		b.scopes[scope] = m
	}
	if st = m[channel]; st != nil {
		return st
	}
	if len(m) >= MaxChannelsPerScope {
		evictIdle(m)
	}
	st = &stream{channel: channel}
	m[channel] = st
	return st
}

// evictIdle forgets the least recently used stream of m that has no
// subscribers, if any. The caller holds Bus.mu for writing.
func evictIdle(m map[string]*stream) {
	var victim *stream
	var oldest uint64
	for _, st := range m {
		st.mu.Lock()
		if len(st.subs) == 0 && (victim == nil || st.lastUse < oldest) {
			victim, oldest = st, st.lastUse
		}
		st.mu.Unlock()
	}
	if victim == nil {
		return
	}
	victim.mu.Lock()
	defer victim.mu.Unlock()
	if len(victim.subs) > 0 { // subscribed to since the scan
		return
	}
	victim.dead = true
	delete(m, victim.channel)
}
