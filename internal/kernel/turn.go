package kernel

import (
	"context"
	"sync"
)

// turnstile orders work on one session: turns are taken in the order
// requests were read and run one at a time, so pipelined execs see each
// other's bindings in order.
type turnstile struct {
	mu   sync.Mutex
	tail chan struct{} // closed when the latest turn ends
}

// turn is one reserved place in a turnstile. It is used by one goroutine
// at a time.
type turn struct {
	prev <-chan struct{} // closed when the previous turn ends; nil: none
	done chan struct{}
	left bool
}

// enter reserves the next turn.
func (t *turnstile) enter() *turn {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := &turn{prev: t.tail, done: make(chan struct{})}
	t.tail = tr.done
	return tr
}

// wait blocks until the turn comes or ctx ends, returning ctx's error in
// the latter case. Either way the caller must call leave.
func (tr *turn) wait(ctx context.Context) error {
	if tr.prev == nil {
		return nil
	}
	select {
	case <-tr.prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave ends the turn; when its predecessor is still running, the turn
// passes on as soon as that one ends. leave is idempotent.
func (tr *turn) leave() {
	if tr.left {
		return
	}
	tr.left = true
	if tr.prev == nil {
		close(tr.done)
		return
	}
	select {
	case <-tr.prev:
		close(tr.done)
	default:
		go func() {
			<-tr.prev
			close(tr.done)
		}()
	}
}

// enterTurn reserves the call's place in its session's order.
func enterTurn(c *call) {
	if c.att != nil {
		c.turn = c.att.sess.turns.enter()
	}
}
