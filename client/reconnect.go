package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// attemptTimeout bounds one reconnect attempt: dial, attach, resubscribe.
const attemptTimeout = 30 * time.Second

// reconnectLoop redials with backoff until a connection is published, the
// client is closed, or the policy gives up.
func (c *Client) reconnectLoop(cause error) {
	defer c.wg.Done()
	p := *c.opts.reconnect
	lastErr := cause
	for attempt := 0; p.MaxAttempts == 0 || attempt < p.MaxAttempts; attempt++ {
		t := time.NewTimer(p.delay(attempt))
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return
		}
		err := c.reestablish()
		if err == nil || c.ctx.Err() != nil {
			return
		}
		lastErr = err
		var rpcErr *proto.RPCError
		if errors.As(err, &rpcErr) {
			break // the kernel refused the attach: retrying will not help
		}
	}
	err := closedErr(fmt.Errorf("client: reconnect gave up: %w", lastErr))
	c.mu.Lock()
	c.terminate(err)
	c.mu.Unlock()
	c.finish(err)
}

// reestablish dials, repeats the last attach, resubscribes every
// subscription from its cursor and then publishes the connection.
func (c *Client) reestablish() error {
	ctx, cancel := context.WithTimeout(c.ctx, attemptTimeout)
	defer cancel()
	cn, err := c.connect(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	attach := c.attach
	c.mu.Unlock()
	if attach != nil {
		if _, err := cn.call(ctx, c.newID(), proto.MethodSessionAttach, attach); err != nil {
			cn.fail(err)
			return fmt.Errorf("client: re-attach: %w", err)
		}
	}
	for {
		c.mu.Lock()
		if c.closedErr != nil {
			c.mu.Unlock()
			cn.fail(ErrClientClosed)
			return nil
		}
		var todo []*Subscription
		for _, s := range c.subs {
			if !s.initial && s.on != cn {
				todo = append(todo, s)
			}
		}
		if len(todo) == 0 {
			c.conn = cn
			close(c.ready)
			c.mu.Unlock()
			c.notify(StateReconnected, nil)
			c.checkPublished(cn)
			return nil
		}
		c.mu.Unlock()
		for _, s := range todo {
			err := c.subscribeOn(ctx, cn, s.channel, s.cursor())
			var rpcErr *proto.RPCError
			switch {
			case err == nil:
				c.mu.Lock()
				s.on = cn
				c.mu.Unlock()
			case errors.As(err, &rpcErr):
				// The kernel refuses this channel now: end only it.
				c.mu.Lock()
				if c.subs[s.channel] == s {
					delete(c.subs, s.channel)
				}
				c.mu.Unlock()
				s.end(err)
			default:
				cn.fail(err)
				return err
			}
		}
	}
}
