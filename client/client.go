package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// Client is a connection to a Shoal kernel. It is safe for concurrent use.
type Client struct {
	path string
	opts options
	ids  atomic.Uint64

	ctx    context.Context // cancelled when the client is closed for good
	cancel context.CancelFunc
	wg     sync.WaitGroup // reader and reconnect goroutines

	mu        sync.Mutex
	conn      *conn         // nil while reconnecting or after close
	ready     chan struct{} // closed when a reconnect publishes conn
	closedErr error         // non-nil once closed for good
	attach    json.RawMessage
	subs      map[string]*Subscription
	watch     watchState // the watched exec (execwatch.go)

	done     chan struct{} // closed once the StateClosed hook has returned
	doneOnce sync.Once
}

// Dial connects to the kernel socket at path. The context bounds only the
// dial; a reconnect uses the client's own lifetime.
func Dial(ctx context.Context, path string, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	c := &Client{path: path, opts: o, subs: make(map[string]*Subscription), done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	cn, err := c.connect(ctx)
	if err != nil {
		c.cancel()
		return nil, err
	}
	c.mu.Lock()
	c.conn = cn
	c.mu.Unlock()
	c.checkPublished(cn)
	return c, nil
}

// checkPublished handles a connection that died before it was published:
// its reader's call to lost found it unpublished and did nothing.
func (c *Client) checkPublished(cn *conn) {
	if cn.cause() != nil {
		c.lost(cn)
	}
}

// Path returns the socket path the client dials.
func (c *Client) Path() string { return c.path }

// connect dials and starts the connection's reader. The connection is not
// published; the caller does that.
func (c *Client) connect(ctx context.Context) (*conn, error) {
	nc, err := c.opts.dial(ctx, c.path)
	if err != nil {
		return nil, fmt.Errorf("client: dial %s: %w", c.path, err)
	}
	cn := newConn(nc, c.dispatchEvent)
	cn.detached = c.dispatchDetached
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		cn.readLoop(c.opts.maxFrame)
		c.lost(cn)
	}()
	return cn, nil
}

// Close closes the connection, fails pending calls with ErrClosed, ends
// every subscription and stops reconnecting. It waits for the client's
// goroutines and is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	first := c.closedErr == nil
	c.terminate(closedErr(ErrClientClosed))
	cn := c.conn
	c.conn = nil
	c.mu.Unlock()
	if cn != nil {
		cn.fail(ErrClientClosed)
	}
	c.wg.Wait()
	if first {
		c.finish(ErrClientClosed)
	}
	return nil
}

// Done is closed when the client is closed for good: by Close, by losing
// the connection without reconnection, or when reconnection gives up. It
// closes after the state hook has been told StateClosed, so a caller
// woken by Done sees everything the hook recorded.
func (c *Client) Done() <-chan struct{} { return c.done }

// finish tells the state hook the client is closed for good, then closes
// Done. Exactly one of the paths that terminate the client calls it.
func (c *Client) finish(err error) {
	c.notify(StateClosed, err)
	c.doneOnce.Do(func() { close(c.done) })
}

// Err returns why the client is closed, matching ErrClosed, or nil.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closedErr
}

// terminate closes the client for good with err; c.mu is held.
func (c *Client) terminate(err error) {
	if c.closedErr != nil {
		return
	}
	c.closedErr = err
	c.cancel()
	for ch, s := range c.subs {
		s.end(err)
		delete(c.subs, ch)
	}
}

// lost is called by a connection's reader after the connection died.
func (c *Client) lost(cn *conn) {
	cause := cn.cause()
	c.mu.Lock()
	if c.conn != cn || c.closedErr != nil {
		// Not published (a reconnect attempt that failed) or already closed.
		c.mu.Unlock()
		return
	}
	c.conn = nil
	if c.opts.reconnect == nil {
		c.terminate(cause)
		c.mu.Unlock()
		c.finish(cause)
		return
	}
	c.ready = make(chan struct{})
	c.wg.Add(1)
	c.mu.Unlock()
	c.notify(StateDisconnected, cause)
	go c.reconnectLoop(cause)
}

func (c *Client) notify(s State, err error) {
	if c.opts.onState != nil {
		c.opts.onState(s, err)
	}
}

// active returns the live connection, waiting for a reconnect in progress
// (at most the policy's CallWait, when it has one).
func (c *Client) active(ctx context.Context) (*conn, error) {
	var giveUp <-chan time.Time // armed on the first wait only
	for {
		c.mu.Lock()
		if c.closedErr != nil {
			err := c.closedErr
			c.mu.Unlock()
			return nil, err
		}
		if c.conn != nil {
			cn := c.conn
			c.mu.Unlock()
			return cn, nil
		}
		ready := c.ready
		c.mu.Unlock()
		if giveUp == nil && c.opts.reconnect != nil && c.opts.reconnect.CallWait > 0 {
			t := time.NewTimer(c.opts.reconnect.CallWait)
			defer t.Stop()
			giveUp = t.C
		}
		select {
		case <-ready:
		case <-c.ctx.Done():
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-giveUp:
			return nil, unavailableError{c.opts.reconnect.CallWait}
		}
	}
}

func (c *Client) newID() uint64 { return c.ids.Add(1) }

// Call invokes method with params and decodes the result into result
// (nil discards it; a *json.RawMessage receives it verbatim). A kernel
// error is returned as a *proto.RPCError, a lost connection as an error
// matching ErrClosed, and a cancelled ctx as ctx.Err() (the call is
// abandoned; the kernel may still run it). A successful session.attach is
// remembered and repeated after a reconnect.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("client: %s: encode params: %w", method, err)
	}
	cn, err := c.active(ctx)
	if err != nil {
		return fmt.Errorf("client: %s: %w", method, err)
	}
	_, enc := params.(Encoded)
	res, err := cn.callEncoded(ctx, c.newID(), method, raw, enc)
	if err != nil {
		return fmt.Errorf("client: %s: %w", method, err)
	}
	if method == proto.MethodSessionAttach {
		c.mu.Lock()
		c.attach = raw
		c.mu.Unlock()
	}
	return decodeResult(method, res, result)
}

func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		if len(bytes.TrimSpace(p)) == 0 {
			return json.RawMessage("{}"), nil
		}
		return p, nil
	case Encoded:
		if len(bytes.TrimSpace(p)) == 0 {
			return json.RawMessage("{}"), nil
		}
		return json.RawMessage(p), nil
	}
	return json.Marshal(params)
}

func decodeResult(method string, res json.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = res
		return nil
	}
	if err := json.Unmarshal(res, result); err != nil {
		return fmt.Errorf("client: %s: decode result: %w", method, err)
	}
	return nil
}
