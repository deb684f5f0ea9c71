package kernel

import (
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func TestTranscriptBoundedByBytes(t *testing.T) {
	s := &session{refs: map[int]stored{}, start: 1, limit: 10_000}
	big := value.Str(strings.Repeat("x", 4000))
	for i := 1; i <= 5; i++ {
		if n := s.store(big); n != i {
			t.Fatalf("store %d returned %d", i, n)
		}
	}
	// Two 4 KB values fit under 10 KB; the older ones were dropped.
	for n, want := range map[int]bool{1: false, 2: false, 3: false, 4: true, 5: true} {
		if _, ok := s.lookup(n); ok != want {
			t.Errorf("out:%d kept = %v, want %v", n, ok, want)
		}
	}
	if s.bytes > s.limit {
		t.Errorf("%d bytes kept over the %d limit", s.bytes, s.limit)
	}
	// A value bigger than the whole bound is still kept, alone.
	huge := value.Str(strings.Repeat("y", 50_000))
	n := s.store(huge)
	if _, ok := s.lookup(n); !ok {
		t.Error("newest value dropped")
	}
	if _, ok := s.lookup(n - 1); ok {
		t.Error("older value kept beside an over-limit one")
	}
}

func TestApproxSizeGrowsWithContent(t *testing.T) {
	small := approxSize(value.NewList([]value.Value{value.Str("a")}), 1<<30)
	large := approxSize(value.NewList([]value.Value{value.Str(strings.Repeat("a", 1000))}), 1<<30)
	if large-small < 999 {
		t.Errorf("sizes %d and %d do not reflect a 999-byte difference", small, large)
	}
	if got := approxSize(value.Str(strings.Repeat("a", 1<<20)), 1000); got > 1<<21 {
		t.Errorf("size %d", got)
	}
}

// TestTranscriptKernelBudget: past the kernel-wide budget the oldest
// values of any session go first, the value being stored stays, and the
// budget's account matches what the sessions hold.
func TestTranscriptKernelBudget(t *testing.T) {
	b := newBudget(10_000)
	s1 := &session{refs: map[int]stored{}, start: 1, limit: 1 << 30, budget: b}
	s2 := &session{refs: map[int]stored{}, start: 1, limit: 1 << 30, budget: b}
	v := value.Str(strings.Repeat("x", 4000))
	for i := 0; i < 2; i++ {
		s1.store(v)
	}
	s2.store(v) // 12 kB in all: s1's out:1 goes
	if _, ok := s1.lookup(1); ok {
		t.Error("the oldest value of the kernel was kept")
	}
	for _, c := range []struct {
		s *session
		n int
	}{{s1, 2}, {s2, 1}} {
		if _, ok := c.s.lookup(c.n); !ok {
			t.Errorf("out:%d of a session was dropped", c.n)
		}
	}
	if got, want := b.total(), s1.bytes+s2.bytes; got != want || got > 10_000 {
		t.Errorf("budget holds %d, sessions %d (limit 10000)", got, want)
	}
	// A value bigger than the whole budget is kept; so is every other
	// session's newest value, and nothing else.
	n := s2.store(value.Str(strings.Repeat("y", 50_000)))
	_, kept2 := s2.lookup(n)
	_, kept1 := s1.lookup(2)
	if !kept1 || !kept2 || len(s1.refs) != 1 || len(s2.refs) != 1 {
		t.Errorf("after an over-budget value: s1 keeps %d (newest %v), s2 keeps %d (newest %v)", len(s1.refs), kept1, len(s2.refs), kept2)
	}
}

// TestTranscriptKernelBudgetConcurrent stores from several sessions at
// once (run with -race) and checks the account stays exact and bounded.
func TestTranscriptKernelBudgetConcurrent(t *testing.T) {
	b := newBudget(50_000)
	sessions := make([]*session, 4)
	for i := range sessions {
		// A small per-session bound too, so both kinds of eviction race.
		sessions[i] = &session{refs: map[int]stored{}, start: 1, limit: 20_000, budget: b}
	}
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 300; j++ {
				s.store(value.Str(strings.Repeat("z", 1000+(i*j)%3000)))
			}
		}()
	}
	wg.Wait()
	sum := 0
	for _, s := range sessions {
		sum += s.bytes
		if len(s.refs) == 0 {
			t.Error("a session lost its newest value")
		}
	}
	if got := b.total(); got != sum || got > 50_000 {
		t.Errorf("budget %d, sessions hold %d, limit 50000", got, sum)
	}
	if n := b.order.Len(); n != func() int {
		c := 0
		for _, s := range sessions {
			c += len(s.refs)
		}
		return c
	}() {
		t.Errorf("budget lists %d values the sessions do not hold exactly", n)
	}
}
