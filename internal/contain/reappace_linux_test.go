package contain

import "testing"

// TestReapPace: after a SIGCHLD the reaper stops listening and looks again
// on its timer, for as long as signals keep coming; a round without one
// puts it back to listening; a child of ours that stays in front makes it
// read the process table on the reapWalkAfter-th retry in a row that saw
// no new signal, as the walk gate always did; signals with one of ours in
// front (a stream of spawns) never count toward a walk.
func TestReapPace(t *testing.T) {
	type retry struct{ pending, blocked, walk, again bool }
	check := func(t *testing.T, p *reapPace, steps []retry) {
		t.Helper()
		for i, s := range steps {
			walk, again := p.retried(s.pending, s.blocked)
			if walk != s.walk || again != s.again {
				t.Fatalf("retry %d (pending %v, blocked %v): walk %v again %v, want %v %v",
					i, s.pending, s.blocked, walk, again, s.walk, s.again)
			}
			if p.listening() == again {
				t.Fatalf("retry %d: listening %v with the timer armed %v", i, p.listening(), again)
			}
		}
	}
	t.Run("one exit", func(t *testing.T) {
		var p reapPace
		if !p.listening() {
			t.Fatal("a new reaper does not listen")
		}
		p.signalled(false)
		if p.listening() {
			t.Fatal("still listening after a SIGCHLD")
		}
		check(t, &p, []retry{{false, false, false, false}})
	})
	t.Run("a stream of spawns", func(t *testing.T) {
		var p reapPace
		p.signalled(true)
		var steps []retry
		for range 10 * reapWalkAfter {
			steps = append(steps, retry{true, true, false, true})
		}
		steps = append(steps, retry{true, false, false, true}, retry{false, false, false, false})
		check(t, &p, steps)
	})
	t.Run("one of ours stays in front", func(t *testing.T) {
		var p reapPace
		p.signalled(true)
		var steps []retry
		for range reapWalkAfter - 1 {
			steps = append(steps, retry{false, true, false, true})
		}
		steps = append(steps, retry{false, true, true, false})
		check(t, &p, steps)
		// Listening again: the next SIGCHLD starts over, and the count
		// too (the walk reset it).
		p.signalled(true)
		check(t, &p, steps)
	})
	t.Run("a clear look starts the count over", func(t *testing.T) {
		var p reapPace
		p.signalled(true)
		var steps []retry
		for range reapWalkAfter - 1 {
			steps = append(steps, retry{false, true, false, true})
		}
		steps = append(steps, retry{true, false, false, true})
		for range reapWalkAfter - 1 {
			steps = append(steps, retry{false, true, false, true})
		}
		steps = append(steps, retry{false, true, true, false})
		check(t, &p, steps)
		// A SIGCHLD taken with nothing of ours in front clears it too.
		p.signalled(true)
		check(t, &p, steps[:reapWalkAfter-1])
		p.quiet = false
		p.signalled(false)
		check(t, &p, steps[reapWalkAfter:])
	})
}
