package eval

import (
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// The session's channel bus: named channels with a bounded replay ring and
// bounded subscriber queues. `channel(name)` returns the handle record
// {channel: name}; emits on a `user.*` channel are also handed to the
// forwarder a kernel installs, and Inject publishes without forwarding (so
// bridged events never echo back).

// Channel bounds.
const (
	// ChannelRing is how many recent events each channel retains for replay.
	ChannelRing = 1024
	// ChannelQueue is how many undelivered events one subscriber may hold;
	// beyond it events are dropped and reported by a marker.
	ChannelQueue = 256
	// ChannelSubs bounds live subscribers per channel; the oldest is
	// closed to admit a new one.
	ChannelSubs = 256
	// MaxChannels bounds how many channels one session may create.
	MaxChannels = 4096
)

// BridgePrefix marks the channels mirrored across a kernel bridge.
const BridgePrefix = "user."

// ChannelEvent is one published event.
type ChannelEvent struct {
	Channel string
	Seq     int64
	TS      time.Time
	Payload value.Value
}

// Forwarder receives emits on user.* channels made by language code.
type Forwarder func(channel string, payload value.Value)

// Channels is a session's channel bus. It is safe for concurrent use.
type Channels struct {
	mu    sync.Mutex
	chans map[string]*chanState
	fwd   Forwarder
}

type chanState struct {
	name    string
	nextSeq int64
	ring    []ChannelEvent // oldest first, at most ChannelRing
	subs    []*chanSub
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

// Emit publishes payload on channel name, forwarding user.* channels.
func (b *Channels) Emit(name string, payload value.Value, ts time.Time) {
	fwd := b.publish(name, payload, ts)
	if fwd != nil && strings.HasPrefix(name, BridgePrefix) {
		fwd(name, payload)
	}
}

// Inject publishes payload locally without forwarding it: the entry point
// for events that arrive over a bridge.
func (b *Channels) Inject(name string, payload value.Value, ts time.Time) {
	b.publish(name, payload, ts)
}

// publish appends the event to the ring and fans it out; it returns the
// forwarder to call outside the lock.
func (b *Channels) publish(name string, payload value.Value, ts time.Time) Forwarder {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.channel(name)
	if c == nil {
		return nil
	}
	ev := ChannelEvent{Channel: name, Seq: c.nextSeq, TS: ts, Payload: payload}
	c.nextSeq++
	if len(c.ring) >= ChannelRing {
		copy(c.ring, c.ring[1:])
		c.ring = c.ring[:len(c.ring)-1]
	}
	c.ring = append(c.ring, ev)
	for _, s := range c.subs {
		s.push(ev)
	}
	return b.fwd
}

// channel finds or creates a channel; nil when the session is at
// MaxChannels. Callers hold b.mu.
func (b *Channels) channel(name string) *chanState {
	c := b.chans[name]
	if c == nil {
		if len(b.chans) >= MaxChannels {
			return nil
		}
		c = &chanState{name: name}
		b.chans[name] = c
	}
	return c
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
// seq > since when replay is set (since < 0 replays everything).
func (b *Channels) subscribe(name string, replay bool, since int64) *chanSub {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &chanSub{bus: b, wake: make(chan struct{}, 1)}
	c := b.channel(name)
	if c == nil {
		s.closed = true
		return s
	}
	s.ch = c
	if replay {
		for _, ev := range c.ring {
			if ev.Seq > since {
				s.push(ev)
			}
		}
	}
	if len(c.subs) >= ChannelSubs {
		c.subs[0].closed = true
		c.subs[0].signal()
		c.subs = c.subs[1:]
	}
	c.subs = append(c.subs, s)
	return s
}

// push queues ev or counts it dropped. Callers hold the bus lock.
func (s *chanSub) push(ev ChannelEvent) {
	switch {
	case len(s.queue) >= ChannelQueue:
		s.dropped++
	case s.dropped > 0:
		// Room again: the loss is reported in order, before ev.
		s.queue = append(s.queue, ChannelEvent{Seq: -s.dropped}, ev)
		s.dropped = 0
	default:
		s.queue = append(s.queue, ev)
	}
	s.signal()
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
		select {
		case <-s.wake:
		case <-deadline:
			return nil, false, true, nil
		case <-ctx.Done():
			return nil, false, false, hostError(ctx.Err())
		}
	}
}

// close unsubscribes.
func (s *chanSub) close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	s.closed = true
	s.queue = nil
	if s.ch == nil {
		return
	}
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
		bus.Emit(name, a.Pos[0], t.host.Now())
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
		sub := bus.subscribe(name, true, since)
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
		sub := bus.subscribe(name, false, 0)
		defer sub.close()
		v, got, timedOut, err := sub.next(t, timeout)
		switch {
		case err != nil:
			return nil, true, err
		case timedOut:
			return nil, true, errorf("timeout", "no event on channel %q within %s", name, value.Inline(value.Duration(timeout)))
		case !got:
			return nil, true, errorf("channel_closed", "channel %q closed", name)
		}
		r := v.(*value.Record)
		if p, ok := r.Get("payload"); ok {
			return p, true, nil
		}
		return v, true, nil
	}
	return nil, false, nil
}
