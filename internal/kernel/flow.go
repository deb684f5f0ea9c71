package kernel

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errStalled ends a connection whose peer took none of its answers for
// the outbox stall (Config.EventStall) while more answers waited.
var errStalled = errors.New("the peer read no answer in time")

// frameCost is what a frame counts in the reply window.
func frameCost(b []byte) int64 { return int64(len(b)) + OutboxFrameCost }

// replyWindow is a connection's flow control: it bounds the answers
// queued for the peer and not yet written, in frames (ReplyWindowFrames)
// and bytes (ReplyWindowBytes). An answer waits for room before it is
// queued; a request waiting so keeps its running slot, and once every slot
// waits the reader stops reading, so a client that writes requests faster
// than it reads answers is slowed down, not disconnected, and costs at most
// the window plus the answers of its running requests. An empty window
// always takes one answer, however large.
//
// Event notifications do not pass through the window (they cannot be
// held back by not reading requests; see conn.deliver).
type replyWindow struct {
	mu     sync.Mutex
	frames int
	bytes  int64
	gen    uint64        // answers written so far: progress
	wake   chan struct{} // closed when room is made; nil while nobody waits
}

// fits reports whether an answer of n bytes fits now. The caller holds mu.
func (w *replyWindow) fits(n int64) bool {
	return w.frames == 0 || (w.frames < ReplyWindowFrames && w.bytes+n <= ReplyWindowBytes)
}

// take reserves room for an answer of n bytes, waiting while there is
// none. It fails with ctx's error when ctx ends first, and with errStalled
// when no answer was written for stall while it waited.
func (w *replyWindow) take(ctx context.Context, n int64, stall time.Duration) error {
	w.mu.Lock()
	if w.fits(n) { // the common case: no timer, no allocation
		w.frames++
		w.bytes += n
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	return w.wait(ctx, stall, func() bool {
		if !w.fits(n) {
			return false
		}
		w.frames++
		w.bytes += n
		return true
	})
}

// written gives back the room of an answer of n bytes that was written
// (or dropped after a failed write).
func (w *replyWindow) written(n int64) { w.give(n, true) }

// unused gives back room taken for an answer that was not queued.
func (w *replyWindow) unused(n int64) { w.give(n, false) }

func (w *replyWindow) give(n int64, progress bool) {
	w.mu.Lock()
	w.frames--
	w.bytes -= n
	if progress {
		w.gen++
	}
	wake := w.wake
	w.wake = nil
	w.mu.Unlock()
	if wake != nil {
		close(wake)
	}
}

// waitWritten waits until one more of the answers queued now has been
// written; it reports false at once when none is queued (there is nothing
// to wait for), and errors as take does.
func (w *replyWindow) waitWritten(ctx context.Context, stall time.Duration) (bool, error) {
	w.mu.Lock()
	if w.frames == 0 {
		w.mu.Unlock()
		return false, nil
	}
	gen := w.gen
	w.mu.Unlock()
	return true, w.wait(ctx, stall, func() bool { return w.gen != gen })
}

// wait blocks until ready (called under mu) holds. The stall clock starts
// again whenever an answer is written meanwhile.
func (w *replyWindow) wait(ctx context.Context, stall time.Duration, ready func() bool) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var seen uint64
	var since time.Time
	for {
		w.mu.Lock()
		if ready() {
			w.mu.Unlock()
			return nil
		}
		if timer == nil || w.gen != seen {
			seen, since = w.gen, time.Now()
		}
		if w.wake == nil {
			w.wake = make(chan struct{})
		}
		wake := w.wake
		w.mu.Unlock()
		left := stall - time.Since(since)
		if left <= 0 {
			return errStalled
		}
		if timer == nil {
			timer = time.NewTimer(left)
		} else {
			timer.Reset(left)
		}
		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
