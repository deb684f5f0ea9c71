package reclaim

import (
	"runtime"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
)

// TestCollectReleasesDeadValues charges for an object whose cleanup
// releases the charge, drops it, and checks that a charge which only fits
// once it is collected succeeds through Collect.
func TestCollectReleasesDeadValues(t *testing.T) {
	b := budget.New("session memory", 1<<20, nil).WithReclaim(Collect)
	func() {
		big := make([]byte, 1<<20)
		if err := b.Charge(int64(len(big))); err != nil {
			t.Fatal(err)
		}
		runtime.AddCleanup(&big[0], func(n int64) { b.Release(n) }, int64(len(big)))
		runtime.KeepAlive(big)
	}()
	if err := b.Charge(1 << 19); err != nil {
		t.Fatalf("charge after the holder died: %v", err)
	}
}
