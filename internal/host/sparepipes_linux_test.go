package host

import (
	"context"
	"sync"
	"testing"
)

// TestRunConcurrentSparePipesBounded: spawns running side by side take
// and refill the spare pipes (sparePipes) at once; however they
// interleave, no more descriptors stay open than the store's bound, and
// every run still sees its own output.
func TestRunConcurrentSparePipesBounded(t *testing.T) {
	echo := prog(t, "echo")
	h := NewOS(AllowAll)
	round := func() {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				want := string(rune('a'+i)) + "\n"
				res, err := h.Run(context.Background(), &Spawn{Argv: []string{echo, want[:1]}})
				if err != nil {
					t.Error(err)
					return
				}
				if string(res.Stdout) != want {
					t.Errorf("run %d: stdout %q, want %q", i, res.Stdout, want)
				}
			})
		}
		wg.Wait()
	}
	round() // /dev/null, and the store filled
	warm := openFds(t)
	for range 5 {
		round()
	}
	if after := openFds(t); after != warm {
		t.Errorf("%d descriptors open after the first round, %d after five more", warm, after)
	}
	if n := len(sparePipes); n > maxSparePipes {
		t.Errorf("%d spare pipes, bound %d", n, maxSparePipes)
	}
}
