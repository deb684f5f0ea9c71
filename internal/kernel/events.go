package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/proto"
)

// Event bounds.
const (
	// DefaultEventsRead is events.read's limit when none is given.
	DefaultEventsRead = 100
	// MaxEventPayload bounds a client-published payload in bytes.
	MaxEventPayload = 64 << 10
	// EventOutboxShare is how many frames of a connection's outbox event
	// notifications may occupy; the rest is kept for responses.
	EventOutboxShare = OutboxFrames / 2
	// StuckOutbox is how long a connection's outbox may make no progress
	// at all while events wait before the connection is closed.
	StuckOutbox = 30 * time.Second
	// eventPoll is how often a waiting event checks the outbox for room.
	eventPoll = 5 * time.Millisecond
)

// errOutboxStuck ends a subscription whose connection stopped reading.
var errOutboxStuck = errors.New("connection outbox made no progress")

// subscriber returns the connection's subscription group, creating it.
func (c *conn) subscriber() *events.Subscriber {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		c.subs = c.srv.bus.NewSubscriber(c.deliver)
	}
	return c.subs
}

// subscriberFor is subscriber for a request of attachment a; it reports
// false when a is no longer the connection's attachment (it was cut), so
// no subscription outlives a revoked token.
func (c *conn) subscriberFor(a *attachment) (*events.Subscriber, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.att != a {
		return nil, false
	}
	if c.subs == nil {
		c.subs = c.srv.bus.NewSubscriber(c.deliver)
	}
	return c.subs, true
}

// closeSubscriptions ends every subscription of a closing connection.
func (c *conn) closeSubscriptions() {
	c.mu.Lock()
	subs := c.subs
	c.mu.Unlock()
	if subs != nil {
		subs.Close()
	}
}

// deliver is the sink of the connection's subscriptions. Events take at
// most EventOutboxShare frames of the outbox; while it has no room the
// subscription waits, its own 256-event queue fills and the bus coalesces
// what does not fit into one {dropped, latest_seq} marker. Only when the
// outbox makes no progress at all for Config.EventStall is the connection
// closed.
func (c *conn) deliver(ev events.Event) error {
	frame, err := proto.EncodeFrame(proto.NewNotification(proto.MethodEvent, ev))
	if err != nil {
		c.srv.log.Error("dropping unencodable event", "channel", ev.Channel, "err", err)
		return nil
	}
	last, since := c.out.Len(), time.Now()
	for {
		if sent, err := c.sendEvent(frame); sent || err != nil {
			return err
		}
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-time.After(eventPoll):
		}
		if n := c.out.Len(); n < last {
			last, since = n, time.Now()
		} else if time.Since(since) > c.srv.cfg.EventStall {
			c.srv.log.Warn("closing connection: outbox stuck while events wait")
			c.cancel()
			c.closeWith(false)
			return errOutboxStuck
		}
	}
}

// sendEvent queues an event frame if events hold fewer than
// EventOutboxShare frames of the outbox. The check and the send are one
// step, so concurrent subscriptions cannot overrun the share.
func (c *conn) sendEvent(frame []byte) (sent bool, err error) {
	c.evMu.Lock()
	defer c.evMu.Unlock()
	if c.out.Len() >= EventOutboxShare {
		return false, nil
	}
	if err := c.out.Send(frame); err != nil {
		if errors.Is(err, proto.ErrOutboxFull) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// publishJSON publishes v, encoded as JSON, on channel in scope.
func (s *Server) publishJSON(scope events.Scope, channel string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("dropping unencodable event", "channel", channel, "err", err)
		return
	}
	s.bus.Publish(scope, channel, b)
}

// checkChannelName accepts a non-empty name of at most 128 bytes without
// white space; whether it is routable is checked per method.
func checkChannelName(name string) error {
	if name == "" || len(name) > events.MaxChannelName || strings.ContainsAny(name, " \t\r\n") {
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

func (c *call) eventsParams() (*eventsParams, error) {
	var p eventsParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Channel == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "channel" is required`, nil)
	}
	if err := checkChannelName(*p.Channel); err != nil {
		return nil, err
	}
	return &p, nil
}

type eventsReadResult struct {
	Channel string         `json:"channel"`
	Events  []events.Event `json:"events"`
}

// handleEventsRead returns the events after since (exclusive), the newest
// limit of them; limit above 1,024 is clamped, and a channel nothing was
// published on reads as empty.
func handleEventsRead(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	limit := DefaultEventsRead
	if p.Limit != nil {
		if *p.Limit < 0 {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: limit must not be negative", nil)
		}
		limit = min(*p.Limit, events.MaxReadLimit)
	}
	var since uint64
	if p.Since != nil {
		since = *p.Since
	}
	res := &eventsReadResult{Channel: *p.Channel, Events: []events.Event{}}
	if limit > 0 && events.ValidChannel(*p.Channel) {
		res.Events = c.conn.srv.bus.Read(c.att.sess.scope(), *p.Channel, since, limit)
	}
	return res, nil
}

type publishResult struct {
	Channel string `json:"channel"`
	Seq     uint64 `json:"seq"`
	TS      int64  `json:"ts"`
}

// handleEventsPublish publishes a client payload on a user.* channel of
// the caller's session.
func handleEventsPublish(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	if !events.CanClientPublish(*p.Channel) {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: clients may publish only on user.* channels", nil)
	}
	if len(p.Payload) > MaxEventPayload {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: payload exceeds 64 KiB", nil)
	}
	payload := p.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	} else {
		payload = append(json.RawMessage(nil), payload...)
	}
	ev := c.conn.srv.bus.Publish(c.att.sess.scope(), *p.Channel, payload)
	bridgeToLanguage(c.att.sess, ev)
	return &publishResult{Channel: ev.Channel, Seq: ev.Seq, TS: ev.TS}, nil
}

// handleEventsSubscribe subscribes the connection to a channel of its
// session, replaying retained events after since first.
func handleEventsSubscribe(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	if !events.ValidChannel(*p.Channel) {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: unknown channel "+quoteRef(*p.Channel), nil)
	}
	scope := c.att.sess.scope()
	since := c.conn.srv.resumeCursor(scope, *p.Channel, p.Since)
	subs, ok := c.conn.subscriberFor(c.att)
	if !ok {
		return nil, c.att.cutErr()
	}
	if _, err := subs.Subscribe(scope, *p.Channel, since); err != nil {
		if errors.Is(err, events.ErrTooManySubscriptions) {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: too many subscriptions on this connection", nil)
		}
		if cerr := c.att.cutErr(); cerr != nil {
			return nil, cerr
		}
		return nil, proto.NewError(proto.CodeInternalError, "subscribe: "+err.Error(), nil)
	}
	if !c.conn.subscribedIn(c.att) {
		return nil, c.att.cutErr()
	}
	return map[string]any{"channel": *p.Channel, "subscribed": true}, nil
}

// maxSeedSeq bounds the cursor a client may carry over from an earlier
// kernel, keeping seq within JSON's exact integers.
const maxSeedSeq = 1 << 53

// resumeCursor adapts a subscription cursor that is ahead of the channel,
// which happens when a client resubscribes after the kernel restarted
// (events live in memory, so numbering began again). On a channel with no
// events yet, numbering continues after the cursor, so the client sees
// seqs keep rising; on a channel that already has events, all retained
// events are replayed rather than skipped.
func (s *Server) resumeCursor(scope events.Scope, channel string, since *uint64) *uint64 {
	if since == nil || events.IsGlobal(channel) {
		return since
	}
	latest := s.bus.LatestSeq(scope, channel)
	if *since <= latest {
		return since
	}
	if latest == 0 && *since < maxSeedSeq {
		s.bus.Seed(scope, channel, *since)
		return since
	}
	zero := uint64(0)
	return &zero
}

// handleEventsUnsubscribe ends the connection's subscription to a channel.
func handleEventsUnsubscribe(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	ok := c.conn.subscriber().Unsubscribe(*p.Channel)
	return map[string]any{"channel": *p.Channel, "unsubscribed": ok}, nil
}
