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
	// The most an attempt may allocate: 8 MiB unless said here. A stream
	// grows item by item: it reserves in doubling chunks, so it stops near
	// the budget (garbage of its growth included), not after its 16
	// million items (~600 MB).
	mostFor := map[string]uint64{"stream collect": 3 * limit}
	for _, c := range []struct {
		name, setup, src string
	}{
		{"collect", "", `(0..16000000).collect()`},
		{"map", "", `(0..16000000).map(x => x)`},
		{"reverse", "", `(0..16000000).reverse()`},
		{"sort_by", "", `(0..16000000).sort_by(x => 0 - x)`},
		{"take", "", `(0..16000000).first(15000000)`},
		{"enumerate", "", `(0..16000000).enumerate()`},
		{"zip", "", `(0..16000000).zip(0..16000000)`},
		{"stream collect", "", `(0..16000000).stream().collect()`},
		{"list concatenation", `let xs = (0..1000000).collect(); let ys = (0..1000000).collect()`, `xs + ys + xs + ys + xs + ys`},
		{"compound concatenation", `var xs = (0..1500000).collect()`, `xs += xs; xs += xs; xs += xs; xs.len()`},
		{"string concatenation", prelude + `let s = rep(33554432)`, `s + s`},
		{"split into characters", prelude + `let s = rep(4194304)`, "s.split(\"\")"},
		{"chars", prelude + `let s = rep(4194304)`, `s.chars()`},
		{"lines", prelude + `let s = rep(2097152).replace("x", "\n")`, `s.lines()`},
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
			most := mostFor[c.name]
			if most == 0 {
				most = 8 << 20
			}
			if got > most {
				t.Errorf("allocated %d MiB before the refusal; want under %d MiB", got>>20, most>>20)
			}
		})
	}
}
