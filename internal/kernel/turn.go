package kernel

import (
	"context"
	"sync"

	"github.com/shoalgo/shoal/internal/eval"
)

// turnstile orders work on one session: turns are taken in the order
// requests were read and run one at a time, so pipelined execs see each
// other's bindings in order.
type turnstile struct {
	mu   sync.Mutex
	tail chan struct{} // closed when the latest turn ends
}

// turn is one reserved place in a turnstile. wait is called by one
// goroutine; leave may be called from several (an exec task that passes
// its turn on when it starts, or when its timeout_ms elapses, and again
// when it ends).
type turn struct {
	prev <-chan struct{} // closed when the previous turn ends; nil: none
	done chan struct{}
	once sync.Once
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
	case <-tr.prev: // the usual case, without making ctx's Done channel
		return nil
	default:
	}
	eval.BeforeWait(ctx) // an exec's: the reading is handed over in time
	select {
	case <-tr.prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave ends the turn; when its predecessor is still running, the turn
// passes on as soon as that one ends. leave is idempotent and safe for
// concurrent use.
func (tr *turn) leave() { tr.once.Do(tr.pass) }

func (tr *turn) pass() {
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
