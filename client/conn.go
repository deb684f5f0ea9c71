package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// reply is what the reader hands a pending call.
type reply struct {
	result json.RawMessage
	err    error
}

// conn is one socket to the kernel: a table of pending calls, a write
// lock, and the reader goroutine that resolves them.
type conn struct {
	nc     net.Conn
	events func(Event) // delivers event notifications; called by the reader
	// detached, when set, receives session.detached params; called by the
	// reader.
	detached func(json.RawMessage)

	wmu sync.Mutex // serialises whole frames

	mu      sync.Mutex
	pending map[uint64]chan reply
	err     error // non-nil once the connection is dead; matches ErrClosed

	dead chan struct{} // closed when the connection is dead

	handed bool // the reader handed a call its answer (yield.go); reader only
}

func newConn(nc net.Conn, events func(Event)) *conn {
	return &conn{
		nc:      nc,
		events:  events,
		pending: make(map[uint64]chan reply),
		dead:    make(chan struct{}),
	}
}

// request is the outgoing envelope. Params is pre-encoded.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      uint64          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// call sends one request with id and waits for its reply. On context
// cancellation the pending entry is removed and ctx.Err() returned; a reply
// arriving later is dropped by the reader.
func (c *conn) call(ctx context.Context, id uint64, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.callEncoded(ctx, id, method, params, false)
}

// callEncoded is call; enc says params are Encoded (encoded.go).
func (c *conn) callEncoded(ctx context.Context, id uint64, method string, params json.RawMessage, enc bool) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	frame, err := requestFrame(id, method, params, enc)
	if err != nil {
		return nil, fmt.Errorf("client: %s: %w", method, err)
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.write(ctx, frame); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id)
		// A reply may have raced the cancellation; prefer it.
		select {
		case r := <-ch:
			return r.result, r.err
		default:
		}
		return nil, ctx.Err()
	}
}

func (c *conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// write sends one whole frame. A context deadline bounds the write; a
// write that fails after sending part of a frame leaves the stream
// unusable, so the connection is closed.
func (c *conn) write(ctx context.Context, frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	dl, _ := ctx.Deadline()
	_ = c.nc.SetWriteDeadline(dl)
	n, err := c.nc.Write(frame)
	if err == nil {
		return nil
	}
	var ne net.Error
	if n == 0 && errors.As(err, &ne) && ne.Timeout() {
		// Nothing was sent, so the stream is intact. The socket's deadline
		// is the context's, and it can lapse a moment before the context's
		// own timer marks it done: that is still the caller's deadline, not
		// a broken connection.
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if !dl.IsZero() && !time.Now().Before(dl) {
			return context.DeadlineExceeded
		}
	}
	c.fail(fmt.Errorf("write: %w", err))
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// readLoop is the connection's single reader: it runs until the stream
// ends or breaks, then fails every pending call.
func (c *conn) readLoop(maxFrame int) {
	r := proto.NewReader(c.nc, maxFrame)
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			c.fail(err)
			return
		}
		if err := c.dispatch(frame); err != nil {
			c.fail(err)
			return
		}
		c.yieldToCaller(r)
	}
}

// inbound is any frame the kernel sends.
type inbound struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *proto.RPCError `json:"error"`
}

// dispatch routes one frame. Only invalid JSON is an error; frames of an
// unexpected shape are ignored. A frame nested deeper than
// proto.MaxFrameDepth is not decoded: the call it answers, if its id is
// found, fails with ErrFrameTooDeep, and the connection stays up.
func (c *conn) dispatch(frame []byte) error {
	f := proto.ScanFrame(frame) // FrameDepth's check, noting the members
	depth, valid := f.Depth, f.Valid
	if !valid {
		return ErrMalformedFrame
	}
	if depth > proto.MaxFrameDepth {
		if id, err := strconv.ParseUint(string(proto.FrameMember(frame, "id")), 10, 64); err == nil {
			if ch, ok := c.take(id); ok {
				c.hand(ch, reply{err: ErrFrameTooDeep})
			}
		}
		return nil
	}
	if id, res, ok := plainResponse(&f); ok { // dispatch_plain.go
		c.resolve(id, res)
		return nil
	}
	var in inbound
	if err := json.Unmarshal(frame, &in); err != nil {
		if !json.Valid(frame) {
			return ErrMalformedFrame
		}
		return nil // valid JSON, but not a frame we understand
	}
	if in.ID == nil {
		switch in.Method {
		case proto.MethodEvent:
			if ev, ok := decodeEvent(in.Params); ok {
				c.events(ev)
			}
		case proto.MethodSessionDetached:
			if c.detached != nil {
				c.detached(in.Params)
			}
		}
		return nil
	}
	id, err := strconv.ParseUint(string(in.ID), 10, 64)
	if err != nil {
		return nil // id null or not ours
	}
	ch, ok := c.take(id)
	if !ok {
		return nil // abandoned call or unknown id
	}
	if in.Error != nil {
		c.hand(ch, reply{err: in.Error})
		return nil
	}
	res := in.Result
	if res == nil {
		res = json.RawMessage("null")
	}
	c.hand(ch, reply{result: res})
	return nil
}

// resolve hands result to the pending call id, if it is still waiting.
func (c *conn) resolve(id uint64, result json.RawMessage) {
	if ch, ok := c.take(id); ok {
		c.hand(ch, reply{result: result})
	}
}

// take removes the pending call id and returns its reply channel; ok is
// false when no call waits under that id (abandoned, or not ours).
func (c *conn) take(id uint64) (chan reply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	return ch, ok
}

// fail marks the connection dead with cause, closes the socket and fails
// every pending call. Only the first cause counts.
func (c *conn) fail(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = closedErr(cause)
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	_ = c.nc.SetDeadline(time.Now()) // unblock a stuck writer
	_ = c.nc.Close()
	for _, ch := range pending {
		ch <- reply{err: c.err}
	}
	close(c.dead)
}

// cause returns the error the connection died with, or nil.
func (c *conn) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
