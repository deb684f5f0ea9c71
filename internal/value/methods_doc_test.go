package value

import (
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

// TestEveryMethodHasHelp: a registered method without help, or help for
// a name no kind registers, fails; each example parses.
func TestEveryMethodHasHelp(t *testing.T) {
	names := AllMethodNames()
	if len(names) < 50 {
		t.Fatalf("only %d method names registered", len(names))
	}
	for _, n := range names {
		d, ok := MethodHelp(n)
		if !ok {
			t.Errorf("method .%s has no help in methodDocs", n)
			continue
		}
		if d.Summary == "" || d.Usage == "" || d.Example == "" {
			t.Errorf("method .%s help lacks a summary, usage or example: %+v", n, d)
		}
		if _, err := syntax.Parse(d.Example, syntax.ParseOptions{}); err != nil {
			t.Errorf("method .%s example %q does not parse: %v", n, d.Example, err)
		}
		if len(MethodOwners(n)) == 0 {
			t.Errorf("method .%s has no owner", n)
		}
	}
	for n := range methodDocs() {
		if len(MethodOwners(n)) == 0 {
			t.Errorf("help for .%s, which no kind registers", n)
		}
	}
	if k, ok := KindNamed("list"); !ok || k != KList {
		t.Errorf("KindNamed(list) = %v, %v", k, ok)
	}
	if _, ok := KindNamed("nosuch"); ok {
		t.Errorf("KindNamed(nosuch) found a kind")
	}
}
