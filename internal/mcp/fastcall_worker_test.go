package mcp

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDirectWorkers: every call handed to the workers is made, however
// many run at once; at most maxIdleWorkers stay parked afterwards, a
// later call is made by a parked one, and stop ends them all.
func TestDirectWorkers(t *testing.T) {
	w := newWorkers()
	const n = 10
	gate := make(chan struct{})
	var started, made sync.WaitGroup
	started.Add(n)
	made.Add(n)
	for range n {
		w.start(func() {
			started.Done()
			<-gate
			made.Done()
		})
	}
	started.Wait() // all n at once: no worker was idle to take two
	close(gate)
	made.Wait()
	// The workers park or end once their call returns; wait until the
	// parked ones are as many as may park (each worker decides once).
	for {
		w.mu.Lock()
		idle := w.nIdle
		w.mu.Unlock()
		if idle > maxIdleWorkers {
			t.Fatalf("%d workers parked, at most %d may", idle, maxIdleWorkers)
		}
		if idle == maxIdleWorkers {
			break
		}
		runtime.Gosched()
	}
	done := make(chan struct{})
	w.start(func() { close(done) })
	<-done
	w.stop()
	w.live.Wait() // hangs (the test times out) if a worker outlives stop
	w.stop()      // twice is harmless
}

// TestDirectWorkerRunsFirst: on the facade's one processor a direct call
// handed to a worker runs before the gate's goroutine goes on (to read
// stdin again), whether the worker was parked or new. The runtime takes
// its global queue first now and then (one schedule in 61), so most
// calls, not all, are asked of it; before the yield none ran first.
func TestDirectWorkerRunsFirst(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	w := newWorkers()
	defer func() {
		w.stop()
		w.live.Wait()
	}()
	const calls = 200
	first := 0
	for i := range calls {
		var ran atomic.Bool
		done := make(chan struct{})
		block := make(chan struct{})
		if i%2 == 1 { // the parked workers busy: the call starts a new one
			w.start(func() { <-block })
			w.start(func() { <-block })
		}
		w.start(func() {
			ran.Store(true)
			close(done)
		})
		if ran.Load() {
			first++
		}
		<-done
		close(block)
	}
	if first < calls*9/10 {
		t.Fatalf("the worker ran before start returned in %d calls of %d", first, calls)
	}
}
