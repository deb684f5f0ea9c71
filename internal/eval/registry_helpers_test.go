package eval

// testRegistry is eval's own registry (Parts), which every in-package
// test session shares. The standard registry (internal/stdlib) imports
// eval and cannot be used here; the library packages moved out of eval
// (internal/lib/...) test their commands with it, beside their code.
var testRegistry = mustRegistry(Parts()...)

func mustRegistry(parts ...*Part) *Registry {
	r, err := NewRegistry(parts...)
	if err != nil {
		panic(err)
	}
	return r
}
