package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/shoalgo/shoal/internal/syntax"
)

// sourceWork runs the CPU-bound work on a request's source (parsing it and
// writing its tree as JSON for parse and explain) on a few long-lived
// goroutines. It bounds how many sources the kernel holds parsed at once,
// whoever sends them (each tree is at most syntax.MaxNodes nodes), and the
// goroutines keep the stacks the parser grew rather than growing a fresh
// one for every request. Each worker owns a keeping syntax.Parser: the
// methods that read a tree and drop it reuse its node memory, so they
// leave nothing for the garbage collector and find that memory warm. (exec
// parses with syntax.Parse, since closures it defines keep their nodes for
// the life of the session.)
type sourceWork struct {
	ctx   context.Context // the server's: workers stop with it
	n     int
	jobs  chan *sourceJob
	start sync.Once
}

// sourceJob is one piece of work and how it ended.
type sourceJob struct {
	fn    func(ps *syntax.Parser)
	done  chan struct{}
	panic any // what fn panicked with, re-raised on the caller's goroutine
}

func newSourceWork(ctx context.Context, workers int) *sourceWork {
	return &sourceWork{ctx: ctx, n: max(workers, 1), jobs: make(chan *sourceJob)}
}

// run runs fn on a worker, with the worker's parser (whose last tree ends
// when fn returns), and waits for it. It gives up, without running fn,
// when ctx is done (the request's connection or the server is going away)
// before a worker is free. A panic in fn panics the caller, so the
// handler's recovery sees it.
func (w *sourceWork) run(ctx context.Context, fn func(ps *syntax.Parser)) error {
	w.start.Do(func() {
		for range w.n {
			go w.work()
		}
	})
	j := &sourceJob{fn: fn, done: make(chan struct{})}
	select {
	case w.jobs <- j:
	case <-ctx.Done():
		return fmt.Errorf("source work: %w", ctx.Err())
	case <-w.ctx.Done():
		return fmt.Errorf("source work: %w", w.ctx.Err())
	}
	<-j.done
	if j.panic != nil {
		panic(j.panic)
	}
	return nil
}

func (w *sourceWork) work() {
	ps := new(syntax.Parser)
	for {
		select {
		case j := <-w.jobs:
			w.do(j, ps)
		case <-w.ctx.Done():
			return
		}
	}
}

func (w *sourceWork) do(j *sourceJob, ps *syntax.Parser) {
	defer close(j.done)
	defer ps.Reset()
	defer func() { j.panic = recover() }()
	j.fn(ps)
}
