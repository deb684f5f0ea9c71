package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shoalgo/shoal/proto"
)

// Subscribe subscribes to channel, replaying retained events with a
// sequence number greater than since (0 replays everything the kernel
// still holds). A channel can have one Subscription per client.
func (c *Client) Subscribe(ctx context.Context, channel string, since uint64) (*Subscription, error) {
	return c.subscribe(ctx, channel, &since)
}

// SubscribeLive subscribes to channel without asking for a replay: only
// events published from now on are delivered (until the first event is
// received, a reconnect also resubscribes without a replay).
func (c *Client) SubscribeLive(ctx context.Context, channel string) (*Subscription, error) {
	return c.subscribe(ctx, channel, nil)
}

func (c *Client) subscribe(ctx context.Context, channel string, since *uint64) (*Subscription, error) {
	if channel == "" {
		return nil, errors.New("client: subscribe: empty channel")
	}
	s := newSubscription(c, channel, c.opts.eventBuf, since)
	c.mu.Lock()
	if c.closedErr != nil {
		err := c.closedErr
		c.mu.Unlock()
		s.end(err)
		return nil, err
	}
	if _, dup := c.subs[channel]; dup {
		c.mu.Unlock()
		s.end(nil)
		return nil, fmt.Errorf("client: subscribe %q: %w", channel, ErrSubscribed)
	}
	// Registered before the request so that replayed events, which may
	// precede the response, are not lost.
	s.initial = true
	c.subs[channel] = s
	c.mu.Unlock()

	cn, err := c.active(ctx)
	for err == nil {
		if err = c.subscribeOn(ctx, cn, channel, s.cursor()); err != nil {
			break
		}
		c.mu.Lock()
		if c.closedErr != nil {
			err = c.closedErr
			c.mu.Unlock()
			break
		}
		if c.conn == cn || c.conn == nil {
			// Current, or a reconnect is under way and will pick it up.
			s.initial, s.on = false, cn
			c.mu.Unlock()
			return s, nil
		}
		// A reconnect completed while we subscribed on the old
		// connection; subscribe again on the new one.
		cn = c.conn
		c.mu.Unlock()
	}
	c.mu.Lock()
	if c.subs[channel] == s {
		delete(c.subs, channel)
	}
	c.mu.Unlock()
	s.end(err)
	return nil, err
}

// subscribeOn sends events.subscribe on cn.
func (c *Client) subscribeOn(ctx context.Context, cn *conn, channel string, since *uint64) error {
	params, err := json.Marshal(proto.EventsParams{Channel: &channel, Since: since})
	if err != nil {
		return err
	}
	if _, err := cn.call(ctx, c.newID(), proto.MethodEventsSubscribe, params); err != nil {
		return fmt.Errorf("client: subscribe %q: %w", channel, err)
	}
	return nil
}

// Unsubscribe ends this client's subscription to channel and tells the
// kernel. Its Events channel is closed; undelivered events are discarded.
// If the connection is down there is nothing to tell the kernel, and the
// channel is simply not resubscribed.
func (c *Client) Unsubscribe(ctx context.Context, channel string) error {
	c.mu.Lock()
	s, ok := c.subs[channel]
	delete(c.subs, channel)
	cn := c.conn
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("client: unsubscribe %q: not subscribed", channel)
	}
	s.end(nil)
	if cn == nil {
		return nil
	}
	params, err := json.Marshal(proto.EventsParams{Channel: &channel})
	if err != nil {
		return err
	}
	if _, err := cn.call(ctx, c.newID(), proto.MethodEventsUnsubscribe, params); err != nil {
		if errors.Is(err, ErrClosed) {
			return nil // the kernel drops a dead connection's subscriptions
		}
		return fmt.Errorf("client: unsubscribe %q: %w", channel, err)
	}
	return nil
}

// dispatchEvent routes an event from the reader to its subscription.
func (c *Client) dispatchEvent(ev Event) {
	c.mu.Lock()
	s := c.subs[ev.Channel]
	if s == nil {
		c.dispatchWatched(ev)
	}
	c.mu.Unlock()
	if s != nil {
		s.push(ev)
	}
}

// dispatchDetached ends every subscription when the kernel reports that
// the connection's attachment was cut: the kernel has dropped them, and
// nothing more will arrive until the client attaches again and
// resubscribes. Each Subscription's Err is a *DetachedError.
func (c *Client) dispatchDetached(params json.RawMessage) {
	d := &DetachedError{}
	if err := json.Unmarshal(params, d); err != nil {
		d.Message = "the kernel detached this connection"
	}
	c.mu.Lock()
	subs := c.subs
	c.subs = make(map[string]*Subscription)
	c.mu.Unlock()
	for _, s := range subs {
		s.end(d)
	}
}
