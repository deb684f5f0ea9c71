package kernel

import (
	"context"
	"runtime"
)

// GCGoalMin is the heap goal the collector is given at least, while the
// live heap is small and the tuning is on (Limits.GCPercent): a kernel's
// live heap is a megabyte or two between big evaluations, and at the
// raised percent alone its goal was the runtime's minimum, 4 MiB scaled by
// the percent (16 MiB at 400). A journal.query of 100 entries allocates
// some 100 KiB (most of it the SQLite driver's copy of each row's text,
// which no reader can avoid), so the kernel collected every ~150 queries,
// and a collection overlapping a query made it several times slower: a
// third of the slowest 2% of journal.query overlapped one, against 1.5%
// of all queries (docs/performance.md, "journal.query: the thirteenth
// round"). The floor is bounded by the cap (GCGoalMax, GCGoalShare of the
// memory limit), so the most the tuning costs is unchanged; only a small
// heap waits longer for its collection.
const GCGoalMin = 64 << 20

// runtimeHeapMin is the Go runtime's smallest heap goal at GOGC=100; at
// percent p it is runtimeHeapMin*p/100 (runtime/mgcpacer.go, heapMinimum).
const runtimeHeapMin = 4 << 20

// gcFloorPercent is the largest percent whose heap goal for a live heap
// of live bytes is at most floor: the runtime's goal is the larger of
// live*(100+p)/100 and runtimeHeapMin*p/100, and each bounds p. It is at
// most floor/runtimeHeapMin*100 (1,600 for GCGoalMin), which a live heap
// under a few MiB is given.
func gcFloorPercent(live, floor int64) int64 {
	return min(floor/(runtimeHeapMin/100), floor/(live/100+1)-100)
}

// watchGC signals gcCycle after each collection until ctx ends, so the
// guard tunes the percent to the heap each collection leaves, not only
// every GuardInterval: at a floor's percent (up to 1,600) a heap that grew
// within one interval would otherwise be given a goal of up to seventeen
// times itself before the guard's next reading lowered it. A sentinel
// object's cleanup runs once the collection that found it unreachable
// has ended, and arms the next one.
func (s *Server) watchGC(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	sentinel := new(gcSentinel)
	runtime.AddCleanup(sentinel, func(c chan<- struct{}) {
		select {
		case c <- struct{}{}:
		default: // a signal is already pending
		}
		s.watchGC(ctx)
	}, chan<- struct{}(s.gcCycle))
}

// gcSentinel is the object watchGC loses to each collection: large enough
// (and holding a pointer) not to share a tiny-allocator block, whose
// cleanup would wait for its neighbours.
type gcSentinel struct {
	_ *byte
	_ [16]byte
}
