package eval

import (
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestRegistryIndexOnFirstLookup: NewRegistry leaves the derivation index
// unbuilt (shoal -c never derives a plan and should not pay for it); the
// first derivation lookup of any kind builds it, and the lookups answer as
// the index built up front does.
func TestRegistryIndexOnFirstLookup(t *testing.T) {
	// eval's own parts and a namespace whose member asks the host (the
	// library packages' are outside eval).
	parts := func() []*Part {
		ns := &Namespace{Name: "lazytest", Members: []*Member{{Name: "m", Value: value.Str("m"), Effects: EffNone}}}
		return append(Parts(), &Part{Namespaces: []*Namespace{ns}})
	}
	eager := mustRegistry(parts()...)
	eager.index()
	var builtin, method, member [2]string
	for name := range eager.derive {
		builtin[0] = name
		break
	}
	for typ, set := range eager.byType {
		for name := range set {
			method = [2]string{typ, name}
		}
	}
	for ns, set := range eager.members {
		for name := range set {
			member = [2]string{ns, name}
		}
	}
	if builtin[0] == "" || method[0] == "" || member[0] == "" {
		t.Fatalf("eval's registry has no builtin, typed method or namespace member to look up: %v %v %v", builtin, method, member)
	}
	firsts := map[string]func(*Registry) bool{
		"Builtin": func(r *Registry) bool { _, ok := r.Builtin(builtin[0]); return ok },
		"Method":  func(r *Registry) bool { _, ok := r.Method(method[0], method[1]); return ok },
		"Member":  func(r *Registry) bool { _, ok := r.Member(member[0], member[1]); return ok },
	}
	for what, first := range firsts {
		r := mustRegistry(parts()...)
		if r.derive != nil || r.byType != nil || r.members != nil {
			t.Fatal("NewRegistry built the derivation index")
		}
		if !first(r) {
			t.Errorf("a first lookup by %s found nothing", what)
		}
		if r.derive == nil || r.byType == nil || r.untyped == nil || r.members == nil {
			t.Errorf("a first lookup by %s left the derivation index unbuilt", what)
		}
	}
	r := mustRegistry(parts()...)
	for name, b := range eager.derive {
		a, ok := r.Builtin(name)
		if !ok || (a.Command == nil) != (b.Command == nil) || (a.Call == nil) != (b.Call == nil) || len(a.Flags) != len(b.Flags) {
			t.Errorf("Builtin(%s) differs from the index built up front", name)
		}
	}
	for name := range eager.untyped {
		if _, ok := r.Method("", name); !ok {
			t.Errorf("Method(\"\", %s) not found", name)
		}
	}
	// Sessions share one registry: a first lookup from several goroutines
	// at once builds the index once (go test -race checks the sharing).
	shared := mustRegistry(parts()...)
	var wg sync.WaitGroup
	for _, first := range firsts {
		for range 2 {
			wg.Go(func() {
				if !first(shared) {
					t.Error("a concurrent first lookup found nothing")
				}
			})
		}
	}
	wg.Wait()
}
