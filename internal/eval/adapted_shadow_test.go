package eval

import (
	"testing"

	"github.com/shoalgo/shoal/internal/adapters"
)

// TestBundledAdaptersReachable: a builtin wins over an adapter at command
// head, so a bundled adapter for a builtin's name would be dead data.
func TestBundledAdaptersReachable(t *testing.T) {
	for _, name := range adapters.Bundled().Names() {
		if _, ok := testRegistry.lookupBuiltin(name); ok {
			t.Errorf("bundled adapter %q is shadowed by the builtin of that name", name)
		}
	}
}
