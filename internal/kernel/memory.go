package kernel

import (
	"cmp"
	"context"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/reclaim"
)

// Memory budgets. Every session's evaluator charges a "session memory"
// budget for the values its programs keep alive and the output they
// capture (internal/eval, internal/host); all of them are children of one
// "kernel memory" budget, so a charge must fit both. A charge that does not
// fit forces one collection (reclaim.Collect) and then fails the request
// with quota_exceeded, naming the budget. Beside the budgets, the process
// has a soft memory limit (debug.SetMemoryLimit) and a guard that watches
// the runtime's own figures, for whatever the budgets do not see: when the
// process nears the limit, the guard cancels the running evaluations of
// the session with the largest budget usage.
//
// The figures below are those for the reference machine; the defaults in
// force are derived at start from the process's real limits (RLIMIT_AS,
// its cgroup, physical memory: memdefaults.go and internal/memlimit),
// which reproduce them there and never exceed them.
//
// On the reference machine (2 cores, 24 GiB, shared with the
// programs sessions run and with the rest of the system): one session may
// keep 2 GiB (a million-row table is ~100 MB, so twenty of them); all
// sessions together 8 GiB, a third of the machine; the process's soft
// limit is 12 GiB, half the machine, leaving room above the budgets for
// what they do not count (request frames, events, syntax trees, stacks)
// and for the collector's headroom.
const (
	DefaultSessionMemory = 2 << 30
	DefaultKernelMemory  = 8 << 30
	DefaultMemoryLimit   = 12 << 30
	// DefaultGCPercent lets the heap grow to five times what is live
	// before a collection while that stays far below the memory limit. A
	// kernel's live heap is small (a few MB between big evaluations), so at
	// GOGC=100 it collects every few MB allocated; every request it
	// answers allocates its frames, and each collection delays the
	// requests it overlaps (a parse RPC's 99th percentile went from ~1.2
	// to ~0.7 ms, docs/performance.md).
	DefaultGCPercent = 400
)

// The heap goal at Limits.GCPercent (five times the live heap) may reach
// GCGoalMax bytes, and at most GCGoalShare percent of the memory limit:
// past either the collector's percent comes down, step by step with the
// live heap, so the goal stays at that cap until it reaches the percent the
// process started with (GOGC, 100 by default; a goal of twice the live
// heap, at a live heap of half the cap). So the tuning costs at most about
// 100 MiB of memory over GOGC=100, a large live heap is collected as often
// as without it, and the guard's GuardPercent reading still means memory
// that is live, not garbage waiting for a lazier collection. (It used to
// switch between the two percents: a live heap just past a fifth of the
// cap had its goal cut from the cap to twice itself at once, a cliff in
// how often a kernel collected.)
const (
	GCGoalMax   = 128 << 20
	GCGoalShare = 50
)

// Names of the memory budgets, as quota_exceeded errors show them.
const (
	SessionMemoryBudget = "session memory"
	KernelMemoryBudget  = "kernel memory"
)

// Bounds of the memory guard, set in one place.
const (
	// GuardInterval is how often the guard reads the runtime's memory
	// figures.
	GuardInterval = 250 * time.Millisecond
	// GuardPercent is the share of the memory limit at which the guard
	// cancels the largest consumer.
	GuardPercent = 90
	// GuardCooldown is how long the guard waits after cancelling before it
	// cancels again, so the cancelled evaluation can unwind and its memory
	// be collected.
	GuardCooldown = time.Second
)

// initMemory creates the kernel-wide budget and, with a memory limit,
// sets the process's soft limit and starts the guard (stopped by
// Shutdown).
func (s *Server) initMemory() {
	s.mem = membudget.New(KernelMemoryBudget, s.limits.KernelMemory, nil).WithReclaim(reclaim.Collect)
	if s.limits.MemoryLimit > 0 {
		debug.SetMemoryLimit(s.limits.MemoryLimit)
		if p := s.limits.GCPercent; p > 0 {
			if base := debug.SetGCPercent(p); base < 0 || base >= p {
				debug.SetGCPercent(base) // GOGC=off or already higher: leave it
			} else {
				s.gcBase, s.gcHigh, s.gcNow = base, p, p
			}
		}
		go s.guard(s.ctx)
	}
}

// tuneGC sets the collector's percent for a live heap of live bytes: the
// raised Limits.GCPercent while its heap goal stays under the cap (the
// lesser of GCGoalMax and GCGoalShare of the memory limit), the percent
// that makes the goal the cap above that, and never below the process's
// own percent (gcGoalPercent). It reports whether it has just lowered the
// percent: the guard then skips that reading, which may count garbage the
// higher percent left, and reads again after a collection at the lower
// one. Only the guard calls it.
func (s *Server) tuneGC(live int64) (lowered bool) {
	if s.gcHigh <= 0 {
		return false
	}
	p := gcGoalPercent(live, s.limits.MemoryLimit, s.gcBase, s.gcHigh)
	if p == s.gcNow {
		return false
	}
	debug.SetGCPercent(p)
	lowered = p < s.gcNow
	s.gcNow = p
	return lowered
}

// gcGoalPercent is the GC percent for a live heap of live bytes under a
// memory limit of limit: high while the heap goal it gives, live × (100 +
// high) / 100, is at most the cap (GCGoalMax, and GCGoalShare percent of
// limit when there is one); above that the percent whose goal is the cap,
// but not below base.
func gcGoalPercent(live, limit int64, base, high int) int {
	capGoal := int64(GCGoalMax)
	if limit > 0 {
		capGoal = min(capGoal, limit/100*GCGoalShare)
	}
	if live <= 0 || live/100*int64(100+high) <= capGoal {
		return high
	}
	p := capGoal/(live/100+1) - 100 // rounded down: the goal stays at or under the cap
	return int(max(int64(base), min(p, int64(high))))
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// memoryInUse is the memory the Go runtime holds from the system and has
// not returned: the figure debug.SetMemoryLimit bounds.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

// guard watches the process's memory until ctx ends.
func (s *Server) guard(ctx context.Context) {
	t := time.NewTicker(GuardInterval)
	defer t.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if s.tuneGC(liveHeap()) || now.Sub(last) < GuardCooldown {
				continue
			}
			if s.guardStep(memoryInUse()) > 0 {
				last = now
			}
		}
	}
}

// guardStep acts on one reading: at or past GuardPercent of the memory
// limit it cancels the running evaluations of the session with the
// largest memory budget usage that has any, with a quota_exceeded cause
// naming the kernel memory budget. It returns how many evaluations it
// cancelled.
func (s *Server) guardStep(inUse int64) int {
	limit := s.limits.MemoryLimit
	if limit <= 0 || inUse < limit/100*GuardPercent {
		return 0
	}
	kids := s.mem.Children()
	slices.SortFunc(kids, func(a, b *membudget.Budget) int { return cmp.Compare(b.Used(), a.Used()) })
	cause := &membudget.ExceededError{Name: KernelMemoryBudget, Limit: limit, Used: inUse}
	for _, k := range kids {
		if n := k.Cancel(cause); n > 0 {
			s.log.Error("memory guard: cancelled the evaluations of the largest consumer",
				"in_use", inUse, "limit", limit, "session_budget_used", k.Used(), "session", s.sessionOf(k), "cancelled", n)
			return n
		}
	}
	return 0
}

// sessionOf names the session charged to b, for the log.
func (s *Server) sessionOf(b *membudget.Budget) string {
	for _, sess := range s.sessions.all() {
		if sess.interp != nil && sess.interp.Budget() == b {
			return sess.key.principal + "/" + sess.key.name
		}
	}
	return ""
}
