package eval

import (
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/value"
)

// The session's channel bus: named channels with a bounded replay ring and
// bounded subscriber queues. `channel(name)` returns the handle record
// {channel: name}; emits on a `user.*` channel are also handed to the
// forwarder a kernel installs, and Inject publishes without forwarding (so
// bridged events never echo back).

// Channel bounds. Event sizes are estimates (eventSize) of the memory a
// payload keeps alive.
const (
	// ChannelRing is how many recent events each channel retains for replay.
	ChannelRing = 1024
	// ChannelRingBytes bounds the estimated bytes one channel retains;
	// past it the oldest events are dropped. A payload larger on its own
	// is refused (quota_exceeded).
	ChannelRingBytes = 4 << 20
	// ChannelMemory bounds the estimated bytes a session's channels hold
	// together, in their rings and in their subscribers' queues. Past it
	// the session's oldest retained events are dropped; a subscriber whose
	// queue cannot grow misses events (a {dropped: n} record reports
	// them); an emit that finds nothing left to drop is refused
	// (quota_exceeded).
	ChannelMemory = 16 << 20
	// ChannelQueue is how many undelivered events one subscriber may hold;
	// beyond it events are dropped and reported by a marker.
	ChannelQueue = 256
	// ChannelSubs bounds live subscribers per channel; the oldest is
	// closed to admit a new one.
	ChannelSubs = 256
	// MaxChannelSubs bounds live subscribers of all a session's channels
	// together; one more is refused (quota_exceeded).
	MaxChannelSubs = 1024
	// MaxChannels bounds how many channels one session may create; an
	// emit or subscribe on one more is refused (quota_exceeded).
	MaxChannels = 4096
	// channelEventOverhead is what one held event is charged beyond its
	// payload estimate.
	channelEventOverhead = 64
)

// eventSize is what one held event is charged: channelEventOverhead plus
// the payload's footprint (value.Footprint: what it keeps alive, at any
// depth, iteratively, shared parts once while the walk remembers them). The
// walk stops once the size passes limit, returning more than limit.
func eventSize(payload value.Value, limit int64) int64 {
	return channelEventOverhead + value.Footprint(payload, limit-channelEventOverhead)
}

// BridgePrefix marks the channels mirrored across a kernel bridge.
const BridgePrefix = "user."

// ChannelEvent is one published event.
type ChannelEvent struct {
	Channel string
	Seq     int64
	TS      time.Time
	Payload value.Value
	size    int64 // estimated bytes charged while held
	order   int64 // publish order across the session's channels
}

// Forwarder receives emits on user.* channels made by language code. A
// non-nil error refuses the emit, which raises it.
type Forwarder func(channel string, payload value.Value) error

// Channels is a session's channel bus. It is safe for concurrent use.
type Channels struct {
	mu    sync.Mutex
	chans map[string]*chanState
	fwd   Forwarder
	held  int64 // estimated bytes in rings and queues (ChannelMemory)
	rings int64 // the part of held in rings, which can be dropped
	subs  int   // live subscribers (MaxChannelSubs)
	order int64
}

type chanState struct {
	name      string
	nextSeq   int64
	ring      []ChannelEvent // oldest first, at most ChannelRing
	ringBytes int64
	subs      []*chanSub
}

// chanSub is one live subscriber: a bounded queue and a wake-up signal.
// A queued event with a negative Seq is a drop marker for -Seq events.
type chanSub struct {
	bus     *Channels
	ch      *chanState
	queue   []ChannelEvent
	dropped int64
	closed  bool
	wake    chan struct{} // capacity 1
}

// Channels returns the session's channel bus, creating it on first use.
func (in *Interp) Channels() *Channels {
	in.chanOnce.Do(func() { in.chans = &Channels{chans: map[string]*chanState{}} })
	return in.chans
}

// SetForwarder installs f to receive language emits on user.* channels
// (nil removes it).
func (b *Channels) SetForwarder(f Forwarder) {
	b.mu.Lock()
	b.fwd = f
	b.mu.Unlock()
}

// Emit publishes payload on channel name. A user.* emit is first handed
// to the forwarder (the kernel's event bus), whose refusal refuses the
// emit; then it is published here. It fails with quota_exceeded when a
// channel budget refuses it.
func (b *Channels) Emit(name string, payload value.Value, ts time.Time) error {
	size := eventSize(payload, ChannelRingBytes)
	if err := b.admit(name, size); err != nil {
		return err
	}
	b.mu.Lock()
	fwd := b.fwd
	b.mu.Unlock()
	if fwd != nil && strings.HasPrefix(name, BridgePrefix) {
		if err := fwd(name, payload); err != nil {
			return err
		}
	}
	return b.publish(name, payload, size, ts)
}

// Inject publishes payload locally without forwarding it: the entry point
// for events that arrive over a bridge. An event a budget refuses is not
// published here.
func (b *Channels) Inject(name string, payload value.Value, ts time.Time) error {
	size := eventSize(payload, ChannelRingBytes)
	if err := b.admit(name, size); err != nil {
		return err
	}
	return b.publish(name, payload, size, ts)
}

// admit refuses, before anything is published anywhere, an event that no
// channel could retain or a channel that cannot be created.
func (b *Channels) admit(name string, size int64) error {
	if size > ChannelRingBytes {
		return errorf(budget.CodeQuotaExceeded, "an event of about %d bytes is larger than a channel retains (%d bytes)", size, ChannelRingBytes)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.chans[name] == nil && len(b.chans) >= MaxChannels {
		return errorf(budget.CodeQuotaExceeded, "this session already has %d channels", MaxChannels)
	}
	if b.held-b.rings+size > ChannelMemory {
		return errChannelMemory()
	}
	return nil
}

func errChannelMemory() *value.Error {
	return errorf(budget.CodeQuotaExceeded, "channel memory of this session is full (%d bytes): its subscribers are not keeping up", ChannelMemory)
}

// publish appends the event to the ring, within the ring's and the
// session's budgets, and fans it out.
func (b *Channels) publish(name string, payload value.Value, size int64, ts time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.channel(name)
	if err != nil {
		return err
	}
	for b.held+size > ChannelMemory {
		if !b.dropOldest() {
			return errChannelMemory()
		}
	}
	b.order++
	ev := ChannelEvent{Channel: name, Seq: c.nextSeq, TS: ts, Payload: payload, size: size, order: b.order}
	c.nextSeq++
	for len(c.ring) >= ChannelRing || (len(c.ring) > 0 && c.ringBytes+size > ChannelRingBytes) {
		b.dropFront(c)
	}
	c.ring = append(c.ring, ev)
	c.ringBytes += size
	b.rings += size
	b.held += size
	for _, s := range c.subs {
		s.push(ev)
	}
	return nil
}

// dropFront drops c's oldest retained event. Callers hold b.mu.
func (b *Channels) dropFront(c *chanState) {
	ev := c.ring[0]
	c.ring[0] = ChannelEvent{}
	c.ring = c.ring[1:]
	if len(c.ring) == 0 {
		c.ring = nil // let the backing array go
	}
	c.ringBytes -= ev.size
	b.rings -= ev.size
	b.held -= ev.size
}

// dropOldest drops the session's oldest retained event; false when the
// rings are empty. Callers hold b.mu.
func (b *Channels) dropOldest() bool {
	var oldest *chanState
	for _, c := range b.chans {
		if len(c.ring) > 0 && (oldest == nil || c.ring[0].order < oldest.ring[0].order) {
			oldest = c
		}
	}
	if oldest == nil {
		return false
	}
	b.dropFront(oldest)
	return true
}

// channel finds or creates a channel; quota_exceeded when the session is
// at MaxChannels. Callers hold b.mu.
func (b *Channels) channel(name string) (*chanState, error) {
	c := b.chans[name]
	if c == nil {
		if len(b.chans) >= MaxChannels {
			return nil, errorf(budget.CodeQuotaExceeded, "this session already has %d channels", MaxChannels)
		}
		c = &chanState{name: name}
		b.chans[name] = c
	}
	return c, nil
}

// Latest returns the newest payload on name, or nil.
func (b *Channels) Latest(name string) value.Value {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chans[name]
	if c == nil || len(c.ring) == 0 {
		return nil
	}
	return c.ring[len(c.ring)-1].Payload
}

// subscribe registers a subscriber, first queuing the retained events with
// seq > since when replay is set (since < 0 replays everything). It fails
// with quota_exceeded when the session has MaxChannelSubs subscribers or
// MaxChannels channels.
func (b *Channels) subscribe(name string, replay bool, since int64) (*chanSub, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs >= MaxChannelSubs {
		return nil, errorf(budget.CodeQuotaExceeded, "this session already has %d live channel subscribers", MaxChannelSubs)
	}
	c, err := b.channel(name)
	if err != nil {
		return nil, err
	}
	s := &chanSub{bus: b, ch: c, wake: make(chan struct{}, 1)}
	if replay {
		for _, ev := range c.ring {
			if ev.Seq > since {
				s.push(ev)
			}
		}
	}
	if len(c.subs) >= ChannelSubs {
		c.subs[0].shut()
		c.subs[0].signal()
		c.subs = c.subs[1:]
	}
	c.subs = append(c.subs, s)
	b.subs++
	return s, nil
}

// push queues ev or counts it dropped: when the queue is full, or holding
// ev would take the session past ChannelMemory. Callers hold the bus lock.
func (s *chanSub) push(ev ChannelEvent) {
	b := s.bus
	switch {
	case len(s.queue) >= ChannelQueue || b.held+ev.size > ChannelMemory:
		s.dropped++
	case s.dropped > 0:
		// Room again: the loss is reported in order, before ev.
		s.queue = append(s.queue, ChannelEvent{Seq: -s.dropped}, ev)
		s.dropped = 0
		b.held += ev.size
	default:
		s.queue = append(s.queue, ev)
		b.held += ev.size
	}
	s.signal()
}

// shut closes s and gives back what its queue holds. Callers hold the bus
// lock.
func (s *chanSub) shut() {
	if s.closed {
		return
	}
	s.closed = true
	for _, ev := range s.queue {
		s.bus.held -= ev.size
	}
	s.queue = nil
	s.bus.subs--
}

func (s *chanSub) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next waits for the next event. A drop marker record comes first when
// events were lost. ok is false when the subscription was closed; timedOut
// reports that timeout (when positive) elapsed.
func (s *chanSub) next(env value.Env, timeout time.Duration) (v value.Value, ok, timedOut bool, err error) {
	var deadline <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		deadline = tm.C
	}
	for {
		s.bus.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = ChannelEvent{}
			s.queue = s.queue[1:]
			s.bus.held -= ev.size
			s.bus.mu.Unlock()
			if ev.Seq < 0 {
				return dropRecord(-ev.Seq), true, false, nil
			}
			return eventRecord(ev), true, false, nil
		}
		if s.dropped > 0 {
			n := s.dropped
			s.dropped = 0
			s.bus.mu.Unlock()
			return dropRecord(n), true, false, nil
		}
		closed := s.closed
		s.bus.mu.Unlock()
		if closed {
			return nil, false, false, nil
		}
		ctx := env.Context()
		var timedOut bool
		var werr error
		blocking(env, func() {
			select {
			case <-s.wake:
			case <-deadline:
				timedOut = true
			case <-ctx.Done():
				werr = hostError(ctx.Err())
			}
		})
		if timedOut {
			return nil, false, true, nil
		}
		if werr != nil {
			return nil, false, false, werr
		}
	}
}

// close unsubscribes.
func (s *chanSub) close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	s.shut()
	for i, x := range s.ch.subs {
		if x == s {
			s.ch.subs = append(s.ch.subs[:i], s.ch.subs[i+1:]...)
			break
		}
	}
}

// dropRecord is the {dropped: n} marker a lagging subscriber receives, in
// order, where events were lost.
func dropRecord(n int64) value.Value {
	return value.NewRecord([]string{"dropped"}, []value.Value{value.Int(n)})
}

// eventRecord is the language view of an event.
func eventRecord(ev ChannelEvent) value.Value {
	var ts value.Value = value.Nil
	if !ev.TS.IsZero() {
		ts = value.DateTime{T: ev.TS}
	}
	payload := ev.Payload
	if payload == nil {
		payload = value.Nil
	}
	return value.NewRecord([]string{"channel", "seq", "ts", "payload"},
		[]value.Value{value.Str(ev.Channel), value.Int(ev.Seq), ts, payload})
}

// chanSource is a subscription as a live stream.
type chanSource struct{ sub *chanSub }

func (c *chanSource) Next(env value.Env) (value.Value, bool, error) {
	v, ok, _, err := c.sub.next(env, 0)
	return v, ok, err
}

// Poll returns a queued event without waiting.
func (c *chanSource) Poll(env value.Env) (value.Value, bool, bool, error) {
	c.sub.bus.mu.Lock()
	ready := len(c.sub.queue) > 0 || c.sub.dropped > 0 || c.sub.closed
	c.sub.bus.mu.Unlock()
	if !ready {
		return nil, true, false, nil
	}
	v, ok, err := c.Next(env)
	return v, ok, true, err
}

func (c *chanSource) Close() { c.sub.close() }

// channelName recognises a channel handle: a record whose only field is
// the str `channel`.
func channelName(v value.Value) (string, bool) {
	r, ok := v.(*value.Record)
	if !ok || r.Len() != 1 {
		return "", false
	}
	f, ok := r.Get("channel")
	if !ok {
		return "", false
	}
	s, ok := f.(value.Str)
	return string(s), ok
}

func fnChannel(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, errorf(codeArg, "channel takes one name")
	}
	name, ok := a.Pos[0].(value.Str)
	if !ok || name == "" {
		return nil, errorf(codeType, "channel expects a non-empty str name, got %s", value.TypeName(a.Pos[0]))
	}
	return value.NewRecord([]string{"channel"}, []value.Value{name}), nil
}

// callChannelMethod implements the channel handle's methods; ok is false
// for any other method name.
func (t *thread) callChannelMethod(name, method string, a value.Args) (value.Value, bool, error) {
	bus := t.in.Channels()
	switch method {
	case "emit":
		if len(a.Pos) != 1 || len(a.Named) > 0 {
			return nil, true, errorf(codeArg, ".emit takes one value")
		}
		if err := bus.Emit(name, a.Pos[0], t.host.Now()); err != nil {
			return nil, true, err
		}
		return value.Nil, true, nil
	case "latest":
		if len(a.Pos) > 0 || len(a.Named) > 0 {
			return nil, true, errorf(codeArg, ".latest takes no arguments")
		}
		if v := bus.Latest(name); v != nil {
			return v, true, nil
		}
		return value.Nil, true, nil
	case "events":
		since := int64(-1)
		sv, ok := a.Get("since")
		if !ok && len(a.Pos) > 0 {
			sv, ok = a.Pos[0], true
		}
		if len(a.Pos) > 1 || len(a.Named) > 1 || (len(a.Named) == 1 && a.Named[0].Name != "since") {
			return nil, true, errorf(codeArg, ".events takes an optional since: seq")
		}
		if ok && sv.Kind() != value.KNull {
			n, isInt := sv.(value.Int)
			if !isInt {
				return nil, true, errorf(codeType, ".events since expects an int, got %s", value.TypeName(sv))
			}
			since = int64(n)
		}
		sub, err := bus.subscribe(name, true, since)
		if err != nil {
			return nil, true, err
		}
		return value.NewStream("channel("+name+")", false, &chanSource{sub: sub}), true, nil
	case "take":
		var timeout time.Duration
		tv, ok := a.Get("timeout")
		if !ok && len(a.Pos) > 0 {
			tv, ok = a.Pos[0], true
		}
		if ok {
			d, isDur := tv.(value.Duration)
			if !isDur || d < 0 {
				return nil, true, errorf(codeType, ".take timeout expects a non-negative duration, got %s", value.TypeName(tv))
			}
			timeout = time.Duration(d)
			if timeout == 0 {
				timeout = time.Nanosecond
			}
		}
		sub, err := bus.subscribe(name, false, 0)
		if err != nil {
			return nil, true, err
		}
		defer sub.close()
		v, got, timedOut, err := sub.next(t, timeout)
		switch {
		case err != nil:
			return nil, true, err
		case timedOut:
			return nil, true, errorf(value.CodeTimeout, "no event on channel %q within %s", name, value.Inline(value.Duration(timeout)))
		case !got:
			return nil, true, errorf(value.CodeChannelClosed, "channel %q closed", name)
		}
		r := v.(*value.Record)
		if p, ok := r.Get("payload"); ok {
			return p, true, nil
		}
		return v, true, nil
	}
	return nil, false, nil
}
