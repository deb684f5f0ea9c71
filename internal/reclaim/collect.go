// Package reclaim forces a garbage collection and waits for the cleanups it
// queued, so memory budgets whose charges are released by runtime cleanups
// get them back before refusing a charge. It is a package of its own
// because it reads runtime/metrics, whose initialiser every linking binary
// pays at start: the kernel links it, the standalone shoal (whose budgets
// never reclaim) does not.
package reclaim

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

var collector struct {
	mu    sync.Mutex
	start time.Time // when the latest collection began
}

// Collect runs a full garbage collection and waits (up to CleanupWait) for
// the cleanups it queued, so charges held by values that are no longer
// reachable are released before a charge is refused (a budget's
// WithReclaim). Concurrent callers
// share one collection: a caller returns as soon as a collection that
// began after its call has finished. Collections are at least
// MinCollectInterval apart.
func Collect() {
	asked := time.Now()
	collector.mu.Lock()
	defer collector.mu.Unlock()
	if collector.start.After(asked) {
		return // a collection that began after we asked has completed
	}
	if wait := MinCollectInterval - time.Since(collector.start); wait > 0 {
		time.Sleep(wait)
	}
	collector.start = time.Now()
	runtime.GC()
	waitCleanups(CleanupWait)
}

// cleanupSamples are the runtime's counts of cleanups queued and run.
var cleanupNames = [2]string{"/gc/cleanups/queued:cleanups", "/gc/cleanups/executed:cleanups"}

// waitCleanups waits until the cleanups queued so far have run, or for d.
func waitCleanups(d time.Duration) {
	s := []metrics.Sample{{Name: cleanupNames[0]}, {Name: cleanupNames[1]}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		time.Sleep(time.Millisecond) // no such metrics: give the cleanups a moment
		return
	}
	queued := s[0].Value.Uint64()
	deadline := time.Now().Add(d)
	for pause := 50 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
		metrics.Read(s)
		if s[1].Value.Uint64() >= queued || time.Now().After(deadline) {
			return
		}
		time.Sleep(pause)
	}
}
