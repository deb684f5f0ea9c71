package kernel

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
)

// BenchmarkPlanLifecycle is what a plan's life costs the store: stored
// pending, approved, applied (a tombstone left), in memory only and with
// each change committed to the journal first. docs/performance.md quotes
// it.
func BenchmarkPlanLifecycle(b *testing.B) {
	for _, durable := range []bool{false, true} {
		name := "memory"
		if durable {
			name = "journal"
		}
		b.Run(name, func(b *testing.B) {
			s := newPlanStore(planBounds{session: 64, principal: 256, token: 4096, memory: 64 << 20, ttl: time.Hour, tombs: 1024}, nil)
			defer s.close()
			s.gen = "gen"
			if durable {
				db, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				s.sink = journalPlans{db}
			}
			owner := sessionKey{"agent:w", "s"}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r := rec("agent:w", "s", "rm /w/x", true, PlanPending)
				if err := s.add(r); err != nil {
					b.Fatal(err)
				}
				if _, _, err := s.decide(r.ref, "agent:lead", false, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := s.consume(r.ref, owner, VerdictApprovalRequired); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
