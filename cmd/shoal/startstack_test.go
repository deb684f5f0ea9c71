package main

import (
	"strings"
	"testing"
)

// TestStartupStackGrownFirst: internal/startstack, which grows the main
// goroutine's stack once to the size the initialisers need, initialises
// before every package outside the standard library (the ones whose
// initialisers recurse deep: regexp compilation in readline and yaml), as
// GODEBUG=inittrace=1 lists the order for `shoal -c 1`. Packages are
// initialised in import-path order among those whose imports are done, so
// a new import of startstack, or a dependency of its own, could move it.
func TestStartupStackGrownFirst(t *testing.T) {
	trace := initTrace(t)
	const self = "github.com/shoalgo/shoal/internal/startstack"
	var before []string
	found := false
	for line := range strings.Lines(trace) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if m[1] == self {
			found = true
			break
		}
		before = append(before, m[1])
	}
	if !found {
		t.Fatalf("no initialiser of %s in GODEBUG=inittrace=1 output:\n%s", self, trace)
	}
	for _, p := range before {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("%s initialises before %s", p, self)
		}
	}
}
