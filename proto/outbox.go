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
	w      io.Writer
	ch     chan outFrame
	done   chan struct{}
	mu     sync.Mutex // guards closed and sends on ch
	closed bool
	queued atomic.Int64 // bytes in ch
	err    atomic.Pointer[error]
}

// NewOutbox starts an Outbox writing to w that queues up to capacity
// frames (DefaultOutboxCapacity when capacity <= 0) and at most
// MaxOutboxBytes bytes.
func NewOutbox(w io.Writer, capacity int) *Outbox {
	if capacity <= 0 {
		capacity = DefaultOutboxCapacity
	}
	o := &Outbox{w: w, ch: make(chan outFrame, capacity), done: make(chan struct{})}
	go o.run()
	return o
}

// Send queues one frame: a single line ending in '\n', as EncodeFrame
// returns. The Outbox takes ownership of frame; the caller must not modify
// it afterwards. Send never blocks; it reports ErrOutboxFull when the queue
// is at capacity, ErrOutboxClosed after Close, an error wrapping
// ErrOutboxBroken after a failed write, and ErrBadFrame for a malformed
// frame.
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
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return ErrOutboxClosed
	}
	if q := o.queued.Load(); q > 0 && q+n > MaxOutboxBytes {
		return ErrOutboxFull
	}
	select {
	case o.ch <- outFrame{frame, release}:
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
		o.queued.Add(-int64(len(f.b)))
		if f.release != nil {
			f.release(f.b)
		}
	}
}
