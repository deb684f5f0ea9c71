package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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
	// notifications may occupy; answers have their own window
	// (ReplyWindowFrames).
	EventOutboxShare = 128
	// StuckOutbox is how long a connection's outbox may make no progress
	// at all while events wait before the connection is closed.
	StuckOutbox = 30 * time.Second
	// MaxTranscriptSrc bounds the source text a session.transcript event
	// carries; longer source is cut (at a UTF-8 boundary) and the event
	// says src_truncated.
	MaxTranscriptSrc = 4 << 10
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
// most EventOutboxShare frames of the outbox, within the kernel-wide
// outbound budget; while there is no room the sink answers
// events.ErrSinkFull, the subscription keeps its place in the channel and
// offers the event again later, and what the channel drops meanwhile is
// reported by one {dropped, latest_seq} marker. Nothing is held for a
// subscriber that lags. Only when the outbox makes no progress at all for
// Config.EventStall is the connection closed.
func (c *conn) deliver(ev events.Event) error {
	if c.out.Len() >= EventOutboxShare {
		return c.eventsWaiting()
	}
	frame, err := proto.EncodeFrame(proto.NewNotification(proto.MethodEvent, ev))
	if err != nil {
		c.srv.log.Error("dropping unencodable event", "channel", ev.Channel, "err", err)
		return nil
	}
	sent, err := c.sendEvent(frame)
	if err != nil {
		return err
	}
	if !sent {
		return c.eventsWaiting()
	}
	return nil
}

// eventsWaiting notes that an event found no room, and closes the
// connection once its outbox has made no progress for Config.EventStall.
func (c *conn) eventsWaiting() error {
	c.evMu.Lock()
	defer c.evMu.Unlock()
	now := time.Now()
	if w := c.out.Written(); w != c.evWritten || c.evSince.IsZero() {
		c.evWritten, c.evSince = w, now
	}
	if now.Sub(c.evSince) > c.srv.cfg.EventStall {
		c.srv.log.Warn("closing connection: outbox stuck while events wait")
		c.cancel()
		c.closeWith(false)
		return errOutboxStuck
	}
	return events.ErrSinkFull
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
	c.evWritten, c.evSince = c.out.Written(), time.Now()
	return true, nil
}

// publishJSON publishes v, encoded as JSON, on channel in scope. The
// kernel's own events are bounded in size; one the bus refuses (a new
// task.N channel in a session whose every channel has subscribers) is
// logged and dropped.
func (s *Server) publishJSON(scope events.Scope, channel string, v any) {
	var b []byte
	var err error
	if a, ok := v.(jsonAppender); ok {
		// Encoded into a reused buffer, then copied once at its size: the
		// bus keeps the payload.
		sp := eventScratch.Get().(*[]byte)
		enc := a.AppendJSON((*sp)[:0])
		b = append([]byte(nil), enc...)
		if cap(enc) <= maxPooledScratch {
			*sp = enc
			eventScratch.Put(sp)
		}
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		s.log.Error("dropping unencodable event", "channel", channel, "err", err)
		return
	}
	if _, err := s.bus.Publish(scope, channel, b); err != nil {
		s.log.Warn("dropping event", "channel", channel, "err", err)
	}
}

// eventScratch holds buffers publishJSON encodes into; one larger than
// maxPooledScratch (a long render) is not kept.
var eventScratch = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledScratch = 64 << 10

// jsonAppender is an event payload that encodes itself without
// reflection: an exec publishes several events, so their encoding is on
// the exec path.
type jsonAppender interface{ AppendJSON([]byte) []byte }

// maxSafeInt is the largest integer JSON carries exactly, 2^53-1: every
// integer param is checked against it before anything is changed.
const maxSafeInt = 1<<53 - 1

// checkSafeInt refuses an integer param outside 0..2^53-1.
func checkSafeInt(name string, n int64) error {
	if n < 0 || n > maxSafeInt {
		return proto.NewError(proto.CodeInvalidParams,
			fmt.Sprintf("invalid params: %s must be an integer from 0 to 2^53-1", name), nil)
	}
	return nil
}

// checkChannelName accepts a non-empty name of at most 128 bytes without
// white space; whether it is routable is checked per method.
func checkChannelName(name string) error {
	if name == "" || len(name) > events.MaxChannelName || strings.ContainsAny(name, " \t\r\n") {
		return proto.NewError(proto.CodeInvalidParams, "invalid params: channel must be a non-empty name of at most 128 bytes", nil)
	}
	return nil
}

// eventsParams decodes and checks the params of the events.* methods.
func (c *call) eventsParams() (*proto.EventsParams, error) {
	var p proto.EventsParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Channel == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "channel" is required`, nil)
	}
	if err := checkChannelName(*p.Channel); err != nil {
		return nil, err
	}
	if p.Since != nil && *p.Since > maxSafeInt {
		return nil, checkSafeInt("since", -1)
	}
	if p.Limit != nil {
		if err := checkSafeInt("limit", int64(*p.Limit)); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// ownScopeView is how attachment a reads and follows the approval
// channel when it is no approver: it sees only its own session's events
// (their audience), numbered among them alone (events.Bus.ScopeRenumber),
// so its seqs have no gaps that count other sessions' plans. ok false for
// another channel, or an approver (who sees every approval event, seqs
// gapless as they are).
func (s *Server) ownScopeView(a *attachment, channel string) (events.View, bool) {
	if channel != events.ChannelApproval || s.judge(a).canApprove() {
		return events.View{}, false
	}
	scope := a.sess.scope()
	return events.View{
		Visible:  func(o events.Scope) bool { return o == scope },
		Renumber: s.bus.ScopeRenumber(scope, channel),
	}, true
}

// eventsReadResult is events.read's answer (proto.EventsReadResult),
// holding the bus's events as they are.
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
		limit = min(*p.Limit, events.MaxReadLimit)
	}
	var since uint64
	if p.Since != nil {
		since = *p.Since
	}
	res := &eventsReadResult{Channel: *p.Channel, Events: []events.Event{}}
	if limit <= 0 || !events.ValidChannel(*p.Channel) {
		return res, nil
	}
	srv := c.conn.srv
	if v, ok := srv.durableView(c.att, *p.Channel); ok {
		// Older than the ring: rebuilt from the journal (journalreplay.go).
		evs, err := srv.bus.ReadView(c.att.sess.scope(), *p.Channel, since, limit, v)
		if err != nil {
			return nil, proto.NewError(proto.CodeInternalError, "events.read: journal: "+err.Error(), nil)
		}
		res.Events = evs
		return res, nil
	}
	if v, ok := srv.ownScopeView(c.att, *p.Channel); ok {
		res.Events, _ = srv.bus.ReadView(c.att.sess.scope(), *p.Channel, since, limit, v)
		return res, nil
	}
	res.Events = srv.bus.Read(c.att.sess.scope(), *p.Channel, since, limit)
	return res, nil
}

// publishResult is events.publish's answer.
type publishResult = proto.Published

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
	ev, err := c.conn.srv.bus.Publish(c.att.sess.scope(), *p.Channel, payload)
	if err != nil {
		if qe := exceededDenied(err); qe != nil {
			return nil, qe
		}
		return nil, proto.NewError(proto.CodeInternalError, "publish: "+err.Error(), nil)
	}
	bridgeToLanguage(c.att.sess, ev)
	return &publishResult{Channel: ev.Channel, Seq: ev.Seq, TS: ev.TS}, nil
}

// handleEventsSubscribe subscribes the connection to a channel of its
// session, replaying retained events after since first. A since ahead of
// the channel is a cursor from an earlier kernel (see
// events.Subscriber.Resume). Params are checked first and the subscribe
// decides everything at once, so a refused subscribe changes nothing.
func handleEventsSubscribe(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	if !events.ValidChannel(*p.Channel) {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: unknown channel "+quoteRef(*p.Channel), nil)
	}
	scope := c.att.sess.scope()
	subs, ok := c.conn.subscriberFor(c.att)
	if !ok {
		return nil, c.att.cutErr()
	}
	srv := c.conn.srv
	if v, ok := srv.durableView(c.att, *p.Channel); ok {
		// Numbered by the journal: a since older than the ring replays
		// from it; one beyond its last number (or none) follows from now.
		since := srv.lastDurableSeq(c.att, *p.Channel)
		if p.Since != nil {
			since = min(since, *p.Since)
		}
		_, err = subs.SubscribeView(scope, *p.Channel, &since, v)
	} else if v, ok := srv.ownScopeView(c.att, *p.Channel); ok {
		_, err = subs.SubscribeView(scope, *p.Channel, p.Since, v)
	} else if p.Since != nil {
		_, err = subs.Resume(scope, *p.Channel, *p.Since)
	} else {
		_, err = subs.Subscribe(scope, *p.Channel, nil)
	}
	if err != nil {
		if errors.Is(err, events.ErrTooManySubscriptions) {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: too many subscriptions on this connection", nil)
		}
		if cerr := c.att.cutErr(); cerr != nil {
			return nil, cerr
		}
		if qe := exceededDenied(err); qe != nil {
			return nil, qe
		}
		return nil, proto.NewError(proto.CodeInternalError, "subscribe: "+err.Error(), nil)
	}
	if !c.conn.subscribedIn(c.att) {
		return nil, c.att.cutErr()
	}
	return &proto.Subscribed{Channel: *p.Channel, Subscribed: true}, nil
}

// handleEventsUnsubscribe ends the connection's subscription to a channel.
func handleEventsUnsubscribe(_ context.Context, c *call) (any, error) {
	p, err := c.eventsParams()
	if err != nil {
		return nil, err
	}
	ok := c.conn.subscriber().Unsubscribe(*p.Channel)
	return &proto.Unsubscribed{Channel: *p.Channel, Unsubscribed: ok}, nil
}
