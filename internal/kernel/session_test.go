package kernel

import (
	"strings"
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
