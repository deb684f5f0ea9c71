package contain

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// TestIdleFDsTakeRelease: Take charges only what fits, never past the
// limit however many goroutines race for it, and what every Take charged
// its Release gives back to the last descriptor.
func TestIdleFDsTakeRelease(t *testing.T) {
	b := NewIdleFDs(10)
	if !b.Take(4) || !b.Take(6) || b.Take(1) {
		t.Fatalf("4 + 6 of 10 then 1 more: used %d", b.Used())
	}
	b.Release(6)
	if !b.Take(2) || b.Take(5) || b.Used() != 6 {
		t.Fatalf("after release: used %d, want 6", b.Used())
	}
	b.Release(6)
	var none *IdleFDs
	if !none.Take(1<<20) || none.Used() != 0 || none.Limit() != -1 {
		t.Fatal("a nil budget bounds something")
	}
	none.Release(3)

	var wg sync.WaitGroup
	var mu sync.Mutex
	over := 0
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				n := 1 + (g+i)%4
				if !b.Take(n) {
					continue
				}
				if u := b.Used(); u > b.Limit() {
					mu.Lock()
					over = max(over, u)
					mu.Unlock()
				}
				b.Release(n)
			}
		}()
	}
	wg.Wait()
	if over != 0 {
		t.Errorf("used %d of a budget of %d", over, b.Limit())
	}
	if b.Used() != 0 {
		t.Errorf("%d descriptors still charged after every take was released", b.Used())
	}
}

// catIn starts cat in s and returns its stdin, whose closing ends it, and
// a wait that reaps it.
func catIn(t *testing.T, s *Scope) (io.Closer, func()) {
	t.Helper()
	cmd := exec.Command("/bin/cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return in, func() { _ = cmd.Wait(); p.Reaped() }
}

// TestScopeFreeLeavesCharged: the empty leaves scopes keep for reuse are
// charged to their shared IdleFDs: a scope whose finished commands leave
// more leaves than the budget holds keeps only what fits and removes the
// rest (their directories and descriptors gone); a leaf taken out of the
// pool, and every leaf of a closed scope, gives its charge back.
func TestScopeFreeLeavesCharged(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil || m.cg.kind != cgV2 {
		t.Skip("no cgroup v2 hierarchy here")
	}
	b := NewIdleFDs(6) // three leaves of two descriptors
	a, c := m.NewScopeCharged(b), m.NewScopeCharged(b)
	// Four commands at once in a: four leaves, each returned when its
	// command ends, of which the pool (maxFreeLeaves, 4) would keep all.
	var waits []func()
	var dirs []string
	for range 4 {
		in, wait := catIn(t, a)
		in.Close()
		waits = append(waits, wait)
	}
	a.mu.Lock()
	for p := range a.procs {
		dirs = append(dirs, p.cg)
	}
	a.mu.Unlock()
	for _, w := range waits {
		w()
	}
	a.prune()
	a.mu.Lock()
	kept := len(a.free)
	a.mu.Unlock()
	if kept != 3 || b.Used() != 6 {
		t.Fatalf("a keeps %d leaves, %d descriptors charged; want 3 and 6", kept, b.Used())
	}
	gone := 0
	for _, d := range dirs {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			gone++
		}
	}
	if gone != 1 {
		t.Errorf("%d of the 4 leaves removed, want the one the budget had no room for", gone)
	}
	// c's command finds no room: its leaf is removed when it ends.
	in, wait := catIn(t, c)
	in.Close()
	wait()
	c.prune()
	c.mu.Lock()
	if len(c.free) != 0 {
		t.Errorf("c keeps %d leaves past a spent budget", len(c.free))
	}
	c.mu.Unlock()
	// A start takes a leaf out of a's pool: its charge goes with it, and
	// comes back when the command ends.
	in, wait = catIn(t, a)
	if b.Used() != 4 {
		t.Errorf("%d charged while a's leaf is in use, want 4", b.Used())
	}
	in.Close()
	wait()
	if b.Used() != 6 {
		t.Errorf("%d charged after the command ended, want 6", b.Used())
	}
	a.Close()
	if b.Used() != 0 {
		t.Errorf("%d charged after the scope holding every leaf closed", b.Used())
	}
	c.Close()
}

// TestScopeFreeLeavesChargedRace: scopes sharing one IdleFDs start and
// end commands from many goroutines, concurrently with each other; the
// charge never passes the limit, and once every scope is closed nothing
// is charged and no descriptor is left open. Run with -race.
func TestScopeFreeLeavesChargedRace(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil || m.cg.kind != cgV2 {
		t.Skip("no cgroup v2 hierarchy here")
	}
	before := openFDs(t)
	b := NewIdleFDs(5) // two leaves, and an odd descriptor that never fits
	scopes := []*Scope{m.NewScopeCharged(b), m.NewScopeCharged(b), m.NewScopeCharged(b)}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 6 {
		s := scopes[i%len(scopes)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 15 {
				cmd := exec.Command("/bin/true")
				p, err := s.Start(cmd)
				if err != nil {
					errs <- err.Error()
					return
				}
				_ = cmd.Wait()
				p.Reaped()
				if u := b.Used(); u > b.Limit() {
					errs <- "over the budget"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, s := range scopes {
		s.Close()
	}
	if b.Used() != 0 {
		t.Errorf("%d descriptors charged after every scope closed", b.Used())
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open before, %d after every scope closed", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}
