package eval

import (
	"runtime"
	"testing"
)

// TestBudgetRefusesBeforeAllocating: making a range of sixteen million
// integers into a list (collect, map, sort, reverse, a slice), and
// concatenating two long lists or strings, is refused by a session budget
// too small for the result before the result is allocated: the process
// allocates a small fraction of what the result would have taken.
func TestBudgetRefusesBeforeAllocating(t *testing.T) {
	const limit = 64 << 20
	for _, c := range []struct {
		name, setup, src string
	}{
		{"collect", "", `(0..16000000).collect()`},
		{"map", "", `(0..16000000).map(x => x)`},
		{"reverse", "", `(0..16000000).reverse()`},
		{"sort_by", "", `(0..16000000).sort_by(x => 0 - x)`},
		{"take", "", `(0..16000000).first(15000000)`},
		{"list concatenation", `let xs = (0..1000000).collect(); let ys = (0..1000000).collect()`, `xs + ys + xs + ys + xs + ys`},
		{"compound concatenation", `var xs = (0..1500000).collect()`, `xs += xs; xs += xs; xs += xs; xs.len()`},
		{"string concatenation", prelude + `let s = rep(33554432)`, `s + s`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, _ := budgetSession(t, limit)
			if c.setup != "" {
				if _, err := in.Eval(t.Context(), c.setup); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			settle()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := in.Eval(t.Context(), c.src)
			runtime.ReadMemStats(&after)
			wantMemQuota(t, err, "session memory")
			// The refused result would be 32 MB or more (a range's list
			// 384 MB); refused first, only the evaluator's own small
			// allocations are made.
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d KiB", got>>10)
			if got > 8<<20 {
				t.Errorf("allocated %d MiB before the refusal; want under 8 MiB", got>>20)
			}
		})
	}
}
