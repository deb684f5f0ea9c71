package mcp

import (
	"runtime"
	"sync"
)

// A direct call's handler needs a deeper stack than a goroutine starts
// with, so a goroutine started per call grew its stack on every call
// (runtime.newstack, ~6% of the facade's Go work; docs/performance.md,
// the eighth round). The direct path's calls therefore run on workers
// that stay parked after a call, keeping the stack they grew, and take
// the next call handed to them; a call finding no idle worker starts
// one. At most maxIdleWorkers stay parked (the rest end when their call
// is answered), and all end when the connection ends (direct.end).

// maxIdleWorkers is how many direct-call workers may wait for a call.
const maxIdleWorkers = 2

// workers are a connection's direct-call workers.
type workers struct {
	idle  chan func()   // unbuffered: a send succeeds only to a parked worker
	done  chan struct{} // closed when the connection ends
	once  sync.Once
	live  sync.WaitGroup // the workers (tests wait for them)
	mu    sync.Mutex
	nIdle int
}

func newWorkers() *workers {
	return &workers{idle: make(chan func()), done: make(chan struct{})}
}

// start runs call on a parked worker, or on a new one, and lets it run
// first.
//
// The caller is the gate's goroutine, which would otherwise go on to read
// stdin again before the worker runs: on the facade's one processor
// (oneproc.go) that read finds stdin empty (EAGAIN) and parks, a system
// call on the call's critical path before the worker sends the exec to
// the kernel (docs/performance.md, the twelfth round). Yielding once
// makes the worker run until it waits for the kernel, and the gate reads
// stdin after, as before: only the order of two runnable goroutines
// changes.
func (w *workers) start(call func()) {
	select {
	case w.idle <- call:
	default:
		w.live.Add(1)
		go w.run(call)
	}
	runtime.Gosched()
}

// run makes call, then the calls handed to it while it is one of the
// parked few, until the connection ends.
func (w *workers) run(call func()) {
	defer w.live.Done()
	for {
		call()
		w.mu.Lock()
		if w.nIdle >= maxIdleWorkers {
			w.mu.Unlock()
			return
		}
		w.nIdle++
		w.mu.Unlock()
		select {
		case call = <-w.idle:
		case <-w.done:
			call = nil
		}
		w.mu.Lock()
		w.nIdle--
		w.mu.Unlock()
		if call == nil {
			return
		}
	}
}

// stop ends the parked workers.
func (w *workers) stop() { w.once.Do(func() { close(w.done) }) }
