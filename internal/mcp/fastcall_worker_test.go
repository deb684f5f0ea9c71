package mcp

import (
	"runtime"
	"sync"
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
