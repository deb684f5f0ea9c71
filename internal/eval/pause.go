package eval

import (
	"context"
	"sync"
	"sync/atomic"
)

// Pause holds an evaluation at its next checkpoint while suspended. The
// checkpoints are where the evaluator already looks for cancellation: each
// top-level statement, each loop iteration, every 1,024th call. Its
// Suspend and Resume make it a task Suspender, so a kernel task's
// in-process work can be suspended as well as the processes it runs (which
// the host stops with SIGSTOP). Work inside one builtin (a long sort, a
// sleep) finishes before the hold takes effect. The zero value is running.
type Pause struct {
	held    atomic.Bool
	mu      sync.Mutex
	resumed chan struct{} // closed by Resume; made by Suspend
	parked  atomic.Int32  // evaluations waiting in wait now (tests read it)
}

// Suspend holds the evaluation at its next checkpoint. Suspending a held
// evaluation changes nothing.
func (p *Pause) Suspend() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.held.Load() {
		p.resumed = make(chan struct{})
		p.held.Store(true)
	}
	return nil
}

// Resume lets a held evaluation go on. Resuming a running one changes
// nothing.
func (p *Pause) Resume() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held.Load() {
		p.held.Store(false)
		close(p.resumed)
	}
	return nil
}

// wait blocks while p is held, until Resume or ctx's end.
func (p *Pause) wait(ctx context.Context) error {
	p.mu.Lock()
	if !p.held.Load() {
		p.mu.Unlock()
		return nil
	}
	resumed := p.resumed
	p.mu.Unlock()
	p.parked.Add(1)
	defer p.parked.Add(-1)
	select {
	case <-resumed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type pauseKey struct{}

// WithPause returns a context under which evaluations started with Eval
// (and everything they run) honour p.
func WithPause(ctx context.Context, p *Pause) context.Context {
	return context.WithValue(ctx, pauseKey{}, p)
}

func pauseFrom(ctx context.Context) *Pause {
	p, _ := ctx.Value(pauseKey{}).(*Pause)
	return p
}

// checkpoint waits while the evaluation is suspended and reports its
// cancellation as a language error.
func (t *thread) checkpoint() error {
	if p := t.pause; p != nil && p.held.Load() {
		var err error
		t.unlocked(func() { err = p.wait(t.ctx) })
		if err != nil {
			return hostError(err)
		}
	}
	t.maybeYield()
	t.computeCheck()
	if err := t.ctx.Err(); err != nil {
		return hostError(err)
	}
	return nil
}
