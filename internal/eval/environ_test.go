package eval

import (
	"slices"
	"testing"
)

// TestEnvironUnchanged: with the environment as the caller last saw it,
// the caller's own slice comes back (no copy); after a change, a copy of
// the new environment that does not alias the interpreter's.
func TestEnvironUnchanged(t *testing.T) {
	s := newSession(t)
	prev := s.in.Environ()
	got, same := s.in.EnvironUnchanged(prev)
	if !same || len(got) != len(prev) || (len(prev) > 0 && &got[0] != &prev[0]) {
		t.Fatalf("unchanged environment: same=%v, got a different slice", same)
	}
	if got, same := s.in.EnvironUnchanged(nil); same || !slices.Equal(got, prev) {
		t.Fatalf("with no earlier copy: same=%v, %v; want a copy of %v", same, got, prev)
	}
	if _, err := s.eval(`env.R16_FOO = "bar"`); err != nil {
		t.Fatal(err)
	}
	got, same = s.in.EnvironUnchanged(prev)
	if same || !slices.Contains(got, "R16_FOO=bar") {
		t.Fatalf("after a change: same=%v, %v", same, got)
	}
	got[0] = "MUTATED=1"
	if slices.Contains(s.in.Environ(), "MUTATED=1") {
		t.Error("the copy aliases the interpreter's environment")
	}
	if again, same := s.in.EnvironUnchanged(s.in.Environ()); !same || !slices.Contains(again, "R16_FOO=bar") {
		t.Errorf("unchanged after the change: same=%v", same)
	}
}
