package proto

import (
	"errors"
	"fmt"
	"io"
	"net"
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
// reading stalls only its own queue. The queue grows as frames arrive, up
// to its capacity, and holds nothing for frames it is not holding: a deep
// capacity costs only what is queued.
//
// When the writer is a TryWriter and nothing is queued or being written,
// Send writes the frame itself, on the caller's goroutine, as far as the
// peer takes it at once; only a frame the peer does not take whole (its
// rest) goes to the writer goroutine, ahead of anything queued meanwhile.
// A request answered this way wakes no goroutine, which on a virtual
// machine can cost more than the write. The writer goroutine takes every
// frame queued when it wakes and writes them with one call where the
// writer allows (net.Buffers), so a backlog drains in few system calls.
type Outbox struct {
	w        io.Writer
	try      TryWriter // w, when it can write without waiting; else nil
	capacity int
	cost     int64         // charged per frame beyond its bytes (OutboxFrameCost)
	kick     chan struct{} // wakes the writer; capacity 1
	done     chan struct{}
	charge   Charge     // nil: queued bytes are bounded per outbox only
	mu       sync.Mutex // guards q, closed and pending's growth
	q        []outFrame // frames waiting for the writer, oldest first
	closed   bool
	wmu      sync.Mutex   // held while bytes go to w; guards rest
	rest     outFrame     // the unwritten tail of a frame Send wrote in part
	pending  atomic.Int64 // frames in q or being written
	queued   atomic.Int64 // bytes in q or being written
	written  atomic.Uint64
	err      atomic.Pointer[error]
}

// TryWriter is a writer that can write without waiting for its peer, as a
// non-blocking socket can.
type TryWriter interface {
	// TryWrite writes what it can of p at once, possibly nothing, and
	// returns how much; it never blocks on the peer. An error means the
	// connection is unusable.
	TryWrite(p []byte) (int, error)
}

// OutboxOption configures an Outbox.
type OutboxOption func(*Outbox)

// OutboxCharge makes the Outbox charge every queued frame to c until it
// has been written, so that a budget can bound what many outboxes hold
// together. A frame c refuses is not queued: Send reports an error
// wrapping both ErrOutboxFull and c's error.
func OutboxCharge(c Charge) OutboxOption { return func(o *Outbox) { o.charge = c } }

// OutboxFrameCost makes the Outbox count n bytes per queued frame beyond
// the frame's own, in its byte bound and its charge, for what holding a
// frame costs besides its bytes: a queue of many small frames is then
// bounded by what it really holds.
func OutboxFrameCost(n int64) OutboxOption { return func(o *Outbox) { o.cost = max(n, 0) } }

// NewOutbox starts an Outbox writing to w that queues up to capacity
// frames (DefaultOutboxCapacity when capacity <= 0), those being written
// included, and at most MaxOutboxBytes bytes.
func NewOutbox(w io.Writer, capacity int, opts ...OutboxOption) *Outbox {
	if capacity <= 0 {
		capacity = DefaultOutboxCapacity
	}
	o := &Outbox{w: w, capacity: capacity, kick: make(chan struct{}, 1), done: make(chan struct{})}
	o.try, _ = w.(TryWriter)
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

// outFrame is a queued frame and what to call once it is written. For the
// rest of a frame written in part, b is the tail and whole the frame,
// which release gets back. A frame with nil b only wakes the writer.
type outFrame struct {
	b       []byte
	whole   []byte
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
	return o.send(frame, release)
}

// SendEncoded is SendOwned for a frame written by an encoder that escapes
// every control character in the strings it writes (the AST's JSON, the
// envelope around it), so that it cannot hold a newline before its last
// byte: only its end and length are checked, not every byte (a parse
// answer is ~17 bytes for each byte of source). The encoders' fuzz
// targets check that they never write a raw newline.
func (o *Outbox) SendEncoded(frame []byte, release func([]byte)) error {
	if n := len(frame); n < 2 || frame[n-1] != '\n' {
		return ErrBadFrame
	}
	if len(frame)-1 > MaxFrame {
		return ErrFrameTooLong
	}
	return o.send(frame, release)
}

// send queues or writes a checked frame.
func (o *Outbox) send(frame []byte, release func([]byte)) error {
	if err := o.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutboxBroken, err)
	}
	if o.try != nil {
		if sent, err := o.sendDirect(frame, release); sent {
			return err
		}
	}
	n := int64(len(frame)) + o.cost
	// The charge is taken before the lock, so that whatever the budget
	// does to make room never runs under it.
	if o.charge != nil {
		if err := o.charge.Grow(n); err != nil {
			return fmt.Errorf("%w: %w", ErrOutboxFull, err)
		}
	}
	if err := o.enqueue(outFrame{b: frame, whole: frame, release: release}, n); err != nil {
		if o.charge != nil {
			o.charge.Shrink(n)
		}
		return err
	}
	return nil
}

// sendDirect writes frame on the caller's goroutine when the writer is
// idle, reporting whether it took the frame (and then the error Send
// gives). The idle check and taking wmu happen under mu, so a Close
// after them finds wmu held and the writer's last look at rest waits for
// it.
func (o *Outbox) sendDirect(frame []byte, release func([]byte)) (bool, error) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return true, ErrOutboxClosed
	}
	if o.queued.Load() != 0 || !o.wmu.TryLock() {
		o.mu.Unlock()
		return false, nil
	}
	o.mu.Unlock()
	n, err := o.try.TryWrite(frame)
	switch {
	case err != nil:
		err = fmt.Errorf("proto: outbox write: %w", err)
		o.storeErr(err)
		fallthrough // the frame is dropped, as after the writer's failed write
	case n >= len(frame):
		o.wmu.Unlock()
		o.written.Add(1)
		if release != nil {
			release(frame)
		}
		return true, nil
	}
	// The peer took part of the frame: the rest goes before anything else.
	rest := int64(len(frame)-n) + o.cost
	if o.charge != nil {
		if err := o.charge.Grow(rest); err != nil {
			// Half a frame cannot be dropped: the connection is done.
			err = fmt.Errorf("%w: the rest of a frame: %w", ErrOutboxFull, err)
			o.storeErr(err)
			o.wmu.Unlock()
			if release != nil {
				release(frame)
			}
			return true, err
		}
	}
	o.queued.Add(rest)
	o.pending.Add(1)
	o.rest = outFrame{b: frame[n:], whole: frame, release: release}
	o.wmu.Unlock()
	o.wake()
	return true, nil
}

// wake makes sure the writer goroutine runs.
func (o *Outbox) wake() {
	select {
	case o.kick <- struct{}{}:
	default: // already due to run
	}
}

func (o *Outbox) enqueue(frame outFrame, n int64) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return ErrOutboxClosed
	}
	if q := o.queued.Load(); q > 0 && q+n > MaxOutboxBytes {
		o.mu.Unlock()
		return ErrOutboxFull
	}
	if o.pending.Load() >= int64(o.capacity) {
		o.mu.Unlock()
		return ErrOutboxFull
	}
	o.q = append(o.q, frame)
	o.pending.Add(1)
	o.queued.Add(n)
	o.mu.Unlock()
	o.wake()
	return nil
}

// Close stops accepting frames. Frames already queued are still written;
// Done is closed once they have been (or a write failed). Close does not
// wait and may be called more than once. To abandon a stuck peer, close the
// underlying connection as well.
func (o *Outbox) Close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.wake()
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

// Len is the number of frames waiting to be written, those being written
// included.
func (o *Outbox) Len() int { return int(o.pending.Load()) }

// Queued is the number of bytes queued or being written.
func (o *Outbox) Queued() int64 { return o.queued.Load() }

// Written is the number of frames written so far (or dropped after a
// failed write): a measure of progress.
func (o *Outbox) Written() uint64 { return o.written.Load() }

// keepBatch is the largest batch slice the writer keeps between wake-ups;
// a longer one, grown by a backlog, is left to the garbage collector.
const keepBatch = 1024

func (o *Outbox) run() {
	defer close(o.done)
	var batch []outFrame
	var bufs net.Buffers
	for range o.kick {
		for {
			o.mu.Lock()
			batch, o.q = o.q, batch[:0]
			closed := o.closed
			o.mu.Unlock()
			o.wmu.Lock()
			o.writeRest()
			if len(batch) > 0 {
				bufs = o.writeBatch(batch, bufs)
			}
			o.wmu.Unlock()
			if len(batch) == 0 {
				if closed {
					return
				}
				break
			}
			clear(batch) // drop the references to written frames
			if cap(batch) > keepBatch {
				batch, bufs = nil, nil
			}
		}
	}
}

// writeRest writes the rest of a frame Send wrote in part, if any. The
// caller holds wmu.
func (o *Outbox) writeRest() {
	if o.rest.b != nil {
		o.write(o.rest)
		o.rest = outFrame{}
	}
}

// writeBatch writes the frames of batch, in one call when there are
// several, unless an earlier write failed, and settles their accounting.
// It returns bufs for reuse. The caller holds wmu.
func (o *Outbox) writeBatch(batch []outFrame, bufs net.Buffers) net.Buffers {
	if len(batch) == 1 {
		o.write(batch[0])
		return bufs
	}
	if o.Err() == nil {
		bufs = bufs[:0]
		for _, f := range batch {
			bufs = append(bufs, f.b)
		}
		keep := bufs // WriteTo consumes its receiver
		if _, err := bufs.WriteTo(o.w); err != nil {
			err = fmt.Errorf("proto: outbox write: %w", err)
			o.storeErr(err)
		}
		clear(keep)
		bufs = keep[:0]
	}
	for _, f := range batch {
		o.settle(f)
	}
	return bufs
}

// write writes f, unless an earlier write failed, and settles its
// accounting. The caller holds wmu.
func (o *Outbox) write(f outFrame) {
	if o.Err() == nil {
		if _, err := o.w.Write(f.b); err != nil {
			err = fmt.Errorf("proto: outbox write: %w", err)
			o.storeErr(err)
		}
	}
	o.settle(f)
}

// settle accounts for f as written (or dropped) and hands it back.
func (o *Outbox) settle(f outFrame) {
	n := int64(len(f.b)) + o.cost
	o.queued.Add(-n)
	if o.charge != nil {
		o.charge.Shrink(n)
	}
	o.pending.Add(-1)
	o.written.Add(1)
	if f.release != nil {
		f.release(f.whole)
	}
}

// storeErr records err as the outbox's failure. Taking its own copy keeps
// the callers' err variables on their stacks: one whose address is stored
// is moved to the heap where it is declared, so every write paid an
// allocation for an error it almost never had.
func (o *Outbox) storeErr(err error) {
	o.err.Store(&err)
}
