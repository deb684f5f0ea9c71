package eval

import (
	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// Parts are the registry parts this package defines, one per file that
// defines entries: the language's own commands, functions, methods and
// namespaces, and the parts of the standard library not yet moved to a
// package of internal/lib. internal/stdlib joins them with the library
// packages' parts into the one standard registry (stdlib.Registry); eval
// itself builds no registry.
func Parts() []*Part {
	var parts []*Part
	for _, register := range []func(*Part){
		registerBuiltinCore,
		registerBuiltinInteract,
		registerFuncs,
		registerHelp,
		registerPlans,
		registerStreams,
		registerTask1,
		registerTask2,
		registerValueMethods,
		registerNamespaces,
	} {
		p := &Part{}
		register(p)
		parts = append(parts, p)
	}
	return parts
}

// registerValueMethods declares the effects of methods whose code is not
// a registry entry's own (Call nil): the value package's methods that
// touch something outside the evaluator, and the glob's pattern accessor
// the evaluator answers in its dispatch. The effect declaration is here,
// where derivation reads it.
func registerValueMethods(p *Part) {
	// A duration anchored at the wall clock.
	p.Method(&Method{Kind: value.KDuration, Name: "ago", Effects: effClock})
	p.Method(&Method{Kind: value.KDuration, Name: "from_now", Effects: effClock})
	// A glob's pattern is read without expanding it (callKnownMethod);
	// every other glob method expands it first (Registry.Method).
	p.Method(&Method{Kind: value.KGlob, Name: "pattern", Effects: EffNone})
}

// registerNamespaces adds the pure data namespaces of the namespaces
// package and the session's config. The namespaces whose members ask the
// host are library packages' (internal/lib/sys, http, secret).
func registerNamespaces(p *Part) {
	for _, name := range namespaces.Names() {
		ns := &Namespace{Name: name, Pure: true}
		if name != "config" {
			v, _ := namespaces.Lookup(name)
			ns.Value = v.(*value.Namespace)
		}
		p.Namespace(ns)
	}
}
