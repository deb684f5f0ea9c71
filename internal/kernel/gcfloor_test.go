package kernel

import (
	"context"
	"runtime"
	"testing"
)

// runtimeGoal is the heap goal the Go runtime sets at percent p for a
// live heap of live bytes.
func runtimeGoal(live int64, p int) int64 {
	return max(runtimeHeapMin/100*int64(p), live/100*int64(100+p))
}

// TestGCGoalFloor checks that a small live heap is given a goal of about
// GCGoalMin (never less than nine tenths of it), that no goal the tuning
// sets passes the cap, whatever the limit, and that the percent is
// continuous where the floor meets the raised percent.
func TestGCGoalFloor(t *testing.T) {
	for _, limit := range []int64{0, DefaultMemoryLimit, 256 << 20, 64 << 20} {
		capGoal := int64(GCGoalMax)
		if limit > 0 {
			capGoal = min(capGoal, limit/100*GCGoalShare)
		}
		floor := min(int64(GCGoalMin), capGoal)
		prev := -1
		for live := int64(0); live <= 2*capGoal; live += 256 << 10 {
			p := gcGoalPercent(live, limit, 100, DefaultGCPercent)
			goal := runtimeGoal(live, p)
			if p > 100 && goal > capGoal {
				t.Fatalf("limit %d, live %d: percent %d gives a goal of %d over the cap %d", limit, live, p, goal, capGoal)
			}
			if live*int64(100+DefaultGCPercent)/100 < floor && goal < floor/10*9 {
				t.Fatalf("limit %d, live %d: percent %d gives a goal of %d, under the floor %d", limit, live, p, goal, floor)
			}
			if p > int(floor/(runtimeHeapMin/100)) {
				t.Fatalf("limit %d, live %d: percent %d above the floor's largest", limit, live, p)
			}
			if prev >= 0 && p > prev {
				t.Fatalf("limit %d, live %d: percent %d rose from %d as the heap grew", limit, live, p, prev)
			}
			prev = p
		}
	}
}

// TestWatchGCSignalsEachCollection checks that watchGC signals after a
// collection, again after the next, and stops once its context ends.
func TestWatchGCSignalsEachCollection(t *testing.T) {
	s := &Server{gcCycle: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.watchGC(ctx)
	wait := func() bool {
		for range 1000 {
			runtime.GC()
			select {
			case <-s.gcCycle:
				return true
			default:
				runtime.Gosched()
			}
		}
		return false
	}
	for i := range 3 {
		if !wait() {
			t.Fatalf("no signal after collection round %d", i)
		}
	}
	cancel()
	// The cleanup armed before the cancel may still signal once.
	wait()
	for range 5 {
		runtime.GC()
		runtime.Gosched()
	}
	select {
	case <-s.gcCycle:
		// one that was in flight: drain and look again
		for range 5 {
			runtime.GC()
			runtime.Gosched()
		}
		select {
		case <-s.gcCycle:
			t.Fatal("watchGC went on signalling after its context ended")
		default:
		}
	default:
	}
}
