package contain

import "testing"

// TestWalkGate: a retry that finds one of ours in front reads the process
// table only on the reapWalkAfter-th such retry in a row; a look that
// finds none of ours in front (the blocker was reaped, and what was
// behind it with it) starts the count over.
func TestWalkGate(t *testing.T) {
	var g walkGate
	for round := range 3 {
		for i := 1; i < reapWalkAfter; i++ {
			if g.blocked() {
				t.Fatalf("round %d: walked after %d blocked retries", round, i)
			}
		}
		if !g.blocked() {
			t.Fatalf("round %d: no walk after %d blocked retries in a row", round, reapWalkAfter)
		}
	}
	// Transient blockers, each cleared before the next: never a walk.
	for i := range 100 {
		if g.blocked() {
			t.Fatalf("walked on transient blocker %d", i)
		}
		g.clear()
	}
}
