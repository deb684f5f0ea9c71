package proto

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Errors reported by Outbox.Send.
var (
	// ErrOutboxFull means the queue is at capacity: the peer is not
	// reading fast enough. The caller decides whether to drop, coalesce or
	// disconnect.
	ErrOutboxFull = errors.New("proto: outbox full")
	// ErrOutboxClosed means Close was called.
	ErrOutboxClosed = errors.New("proto: outbox closed")
	// ErrOutboxBroken means an earlier write failed; the connection is
	// unusable. The write error is wrapped alongside it.
	ErrOutboxBroken = errors.New("proto: outbox write failed")
)

// Outbox is a bounded outbound frame queue for one connection, drained by a
// single writer goroutine. Send never blocks, so a client that stops
// reading stalls only its own queue.
type Outbox struct {
	w       io.Writer
	ch      chan outFrame
	done    chan struct{}
	charge  Charge     // nil: queued bytes are bounded per outbox only
	mu      sync.Mutex // guards closed and sends on ch
	closed  bool
	queued  atomic.Int64 // bytes in ch or being written
	written atomic.Uint64
	err     atomic.Pointer[error]
}

// OutboxOption configures an Outbox.
type OutboxOption func(*Outbox)

// OutboxCharge makes the Outbox charge every queued frame to c until it
// has been written, so that a budget can bound what many outboxes hold
// together. A frame c refuses is not queued: Send reports an error
// wrapping both ErrOutboxFull and c's error.
func OutboxCharge(c Charge) OutboxOption { return func(o *Outbox) { o.charge = c } }

// NewOutbox starts an Outbox writing to w that queues up to capacity
// frames (DefaultOutboxCapacity when capacity <= 0) and at most
// MaxOutboxBytes bytes.
func NewOutbox(w io.Writer, capacity int, opts ...OutboxOption) *Outbox {
	if capacity <= 0 {
		capacity = DefaultOutboxCapacity
	}
	o := &Outbox{w: w, ch: make(chan outFrame, capacity), done: make(chan struct{})}
	for _, opt := range opts {
		opt(o)
	}
	go o.run()
	return o
}

// Send queues one frame: a single line ending in '\n', as EncodeFrame
// returns. The Outbox takes ownership of frame; the caller must not modify
// it afterwards. Send never blocks; it reports ErrOutboxFull when the queue
// is at capacity (or its charge refuses the frame), ErrOutboxClosed after
// Close, an error wrapping ErrOutboxBroken after a failed write, and
// ErrBadFrame for a malformed frame.
func (o *Outbox) Send(frame []byte) error { return o.SendOwned(frame, nil) }

// outFrame is a queued frame and what to call once it is written.
type outFrame struct {
	b       []byte
	release func([]byte)
}

// SendOwned is Send for a frame whose buffer the caller wants back: once
// the frame has been written (or dropped after a failed write) the writer
// calls release(frame), if release is not nil, and keeps no reference to
// it. When SendOwned returns an error, release is not called and the
// buffer is the caller's again.
func (o *Outbox) SendOwned(frame []byte, release func([]byte)) error {
	if err := checkFrame(frame); err != nil {
		return err
	}
	if err := o.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutboxBroken, err)
	}
	n := int64(len(frame))
	// The charge is taken before the lock, so that whatever the budget
	// does to make room never runs under it.
	if o.charge != nil {
		if err := o.charge.Grow(n); err != nil {
			return fmt.Errorf("%w: %w", ErrOutboxFull, err)
		}
	}
	if err := o.enqueue(outFrame{frame, release}, n); err != nil {
		if o.charge != nil {
			o.charge.Shrink(n)
		}
		return err
	}
	return nil
}

func (o *Outbox) enqueue(frame outFrame, n int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return ErrOutboxClosed
	}
	if q := o.queued.Load(); q > 0 && q+n > MaxOutboxBytes {
		return ErrOutboxFull
	}
	select {
	case o.ch <- frame:
		o.queued.Add(n)
		return nil
	default:
		return ErrOutboxFull
	}
}

// Close stops accepting frames. Frames already queued are still written;
// Done is closed once they have been (or a write failed). Close does not
// wait and may be called more than once. To abandon a stuck peer, close the
// underlying connection as well.
func (o *Outbox) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.closed = true
		close(o.ch)
	}
}

// Done is closed when the writer goroutine has exited after Close.
func (o *Outbox) Done() <-chan struct{} { return o.done }

// Err returns the first write error, or nil.
func (o *Outbox) Err() error {
	if p := o.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Len is the number of frames waiting to be written.
func (o *Outbox) Len() int { return len(o.ch) }

// Queued is the number of bytes queued or being written.
func (o *Outbox) Queued() int64 { return o.queued.Load() }

// Written is the number of frames written so far (or dropped after a
// failed write): a measure of progress.
func (o *Outbox) Written() uint64 { return o.written.Load() }

func (o *Outbox) run() {
	defer close(o.done)
	broken := false
	for f := range o.ch {
		if !broken {
			if _, err := o.w.Write(f.b); err != nil {
				err = fmt.Errorf("proto: outbox write: %w", err)
				o.err.Store(&err)
				broken = true
			}
		}
		n := int64(len(f.b))
		o.queued.Add(-n)
		if o.charge != nil {
			o.charge.Shrink(n)
		}
		o.written.Add(1)
		if f.release != nil {
			f.release(f.b)
		}
	}
}
