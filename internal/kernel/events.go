package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// Event bounds.
const (
	// EventRetention is how many events one channel keeps for replay.
	EventRetention = 1024
	// MaxEventsRead bounds the events one events.read returns.
	MaxEventsRead = 1024
	// DefaultEventsRead is events.read's limit when none is given.
	DefaultEventsRead = 100
	// MaxEventPayload bounds a published payload in bytes.
	MaxEventPayload = 64 << 10
	// MaxChannelName bounds a channel name in bytes.
	MaxChannelName = 128
)

// channelKey scopes a channel to the (principal, session) it arises in.
type channelKey struct {
	sess    sessionKey
	channel string
}

// channelLog is one scoped channel: its recent events and subscribers.
type channelLog struct {
	mu     sync.Mutex
	seq    uint64
	events []proto.Event // oldest first, at most EventRetention
	subs   map[*conn]struct{}
}

// bus holds the kernel's channels.
type bus struct {
	mu   sync.Mutex
	logs map[channelKey]*channelLog
}

func (b *bus) log(key channelKey) *channelLog {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.logs == nil {
		b.logs = map[channelKey]*channelLog{}
	}
	l, ok := b.logs[key]
	if !ok {
		l = &channelLog{subs: map[*conn]struct{}{}}
		b.logs[key] = l
	}
	return l
}

// peek returns the channel's log if it exists.
func (b *bus) peek(key channelKey) *channelLog {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs[key]
}

// publish appends an event and sends it to every subscriber.
func (b *bus) publish(key channelKey, payload any) proto.Event {
	l := b.log(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ev := proto.Event{Channel: key.channel, Seq: l.seq, TS: time.Now().UnixNano(), Payload: payload}
	if len(l.events) == EventRetention {
		copy(l.events, l.events[1:])
		l.events = l.events[:EventRetention-1]
	}
	l.events = append(l.events, ev)
	for c := range l.subs {
		c.send(proto.NewNotification(proto.MethodEvent, ev))
	}
	return ev
}

// after returns the events with seq > since, newest limit of them.
func (l *channelLog) after(since uint64, limit int) []proto.Event {
	i := len(l.events)
	for i > 0 && l.events[i-1].Seq > since {
		i--
	}
	out := l.events[i:]
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return append([]proto.Event(nil), out...)
}

// subscribe replays events after since to c and adds it as a subscriber,
// atomically with respect to publish.
func (b *bus) subscribe(key channelKey, c *conn, since *uint64) {
	l := b.log(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	if since != nil {
		for _, ev := range l.after(*since, EventRetention) {
			c.send(proto.NewNotification(proto.MethodEvent, ev))
		}
	}
	l.subs[c] = struct{}{}
	c.mu.Lock()
	if c.subs == nil {
		c.subs = map[channelKey]struct{}{}
	}
	c.subs[key] = struct{}{}
	c.mu.Unlock()
}

// unsubscribe removes c from a channel, reporting whether it was there.
func (b *bus) unsubscribe(key channelKey, c *conn) bool {
	l := b.peek(key)
	if l == nil {
		return false
	}
	l.mu.Lock()
	_, ok := l.subs[c]
	delete(l.subs, c)
	l.mu.Unlock()
	c.mu.Lock()
	delete(c.subs, key)
	c.mu.Unlock()
	return ok
}

// dropConn removes every subscription of a closing connection.
func (b *bus) dropConn(c *conn) {
	c.mu.Lock()
	keys := make([]channelKey, 0, len(c.subs))
	for k := range c.subs {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	for _, k := range keys {
		b.unsubscribe(k, c)
	}
}

func checkChannel(name string) error {
	if name == "" || len(name) > MaxChannelName || strings.ContainsAny(name, " \t\r\n") {
		return proto.NewError(proto.CodeInvalidParams, "invalid params: channel must be a non-empty name of at most 128 bytes", nil)
	}
	return nil
}

type eventsParams struct {
	Channel *string         `json:"channel"`
	Since   *uint64         `json:"since"`
	Limit   *int            `json:"limit"`
	Payload json.RawMessage `json:"payload"`
}

func (c *call) eventsParams() (*eventsParams, channelKey, error) {
	var p eventsParams
	if err := c.params(&p); err != nil {
		return nil, channelKey{}, err
	}
	if p.Channel == nil {
		return nil, channelKey{}, proto.NewError(proto.CodeInvalidParams, `invalid params: "channel" is required`, nil)
	}
	if err := checkChannel(*p.Channel); err != nil {
		return nil, channelKey{}, err
	}
	return &p, channelKey{sess: c.att.sess.key, channel: *p.Channel}, nil
}

type eventsReadResult struct {
	Channel string        `json:"channel"`
	Events  []proto.Event `json:"events"`
}

func handleEventsRead(_ context.Context, c *call) (any, error) {
	p, key, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	limit := DefaultEventsRead
	if p.Limit != nil {
		if *p.Limit < 0 {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: limit must not be negative", nil)
		}
		limit = min(*p.Limit, MaxEventsRead)
	}
	var since uint64
	if p.Since != nil {
		since = *p.Since
	}
	res := &eventsReadResult{Channel: key.channel, Events: []proto.Event{}}
	if l := c.conn.srv.bus.peek(key); l != nil {
		l.mu.Lock()
		res.Events = l.after(since, limit)
		l.mu.Unlock()
	}
	return res, nil
}

type publishResult struct {
	Channel string `json:"channel"`
	Seq     uint64 `json:"seq"`
	TS      int64  `json:"ts"`
}

func handleEventsPublish(_ context.Context, c *call) (any, error) {
	p, key, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(key.channel, "user.") || len(key.channel) == len("user.") {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: clients may publish only on user.* channels", nil)
	}
	if len(p.Payload) > MaxEventPayload {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: payload exceeds 64 KiB", nil)
	}
	payload := p.Payload
	if payload == nil {
		payload = json.RawMessage("null")
	}
	ev := c.conn.srv.bus.publish(key, payload)
	return &publishResult{Channel: ev.Channel, Seq: ev.Seq, TS: ev.TS}, nil
}

func handleEventsSubscribe(_ context.Context, c *call) (any, error) {
	p, key, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	c.conn.srv.bus.subscribe(key, c.conn, p.Since)
	return map[string]any{"channel": key.channel, "subscribed": true}, nil
}

func handleEventsUnsubscribe(_ context.Context, c *call) (any, error) {
	_, key, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	ok := c.conn.srv.bus.unsubscribe(key, c.conn)
	return map[string]any{"channel": key.channel, "unsubscribed": ok}, nil
}
