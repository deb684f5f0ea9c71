package eval

import (
	"slices"
	"testing"
)

func TestBuiltinFlagsFromTheRegistry(t *testing.T) {
	b, ok := testRegistry.lookupBuiltin("ls")
	if !ok || len(b.Flags) == 0 {
		t.Skip("ls declares no flags")
	}
	got := testRegistry.BuiltinFlags("ls")
	for _, f := range b.Flags {
		if f.Long != "" && !slices.Contains(got, "--"+f.Long) {
			t.Errorf("testRegistry.BuiltinFlags(ls) = %q lacks --%s", got, f.Long)
		}
		for _, r := range f.Short {
			if !slices.Contains(got, "-"+string(r)) {
				t.Errorf("testRegistry.BuiltinFlags(ls) = %q lacks -%c", got, r)
			}
		}
	}
	if testRegistry.BuiltinFlags("no-such-builtin") != nil {
		t.Error("flags for a name that is not a builtin")
	}
	if testRegistry.BuiltinFlags("echo") != nil {
		t.Error("echo's flags are text it prints, not options")
	}
}
