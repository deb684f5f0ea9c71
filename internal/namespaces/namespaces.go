// Package namespaces provides Shoal's pure data namespaces — json, yaml,
// toml, csv, math and config — as first-class values. Each namespace is a
// *value.Namespace whose members are constants or *value.Builtin functions;
// none of them touches the operating system, so they need no host gate.
//
// The evaluator resolves an unbound root name such as `json` through Lookup;
// a user binding of the same name shadows the namespace.
package namespaces

import (
	"slices"
	"sync"

	"github.com/shoalgo/shoal/internal/value"
)

// registry holds the shared, immutable namespace values, built the first
// time a namespace is looked up rather than at every start. Callers must
// not modify a returned namespace's Members map.
var registry = sync.OnceValue(func() map[string]*value.Namespace {
	r := map[string]*value.Namespace{}
	for _, ns := range []*value.Namespace{jsonNamespace(), yamlNamespace(), tomlNamespace(), csvNamespace(), mathNamespace(), Config(nil)} {
		r[ns.Name] = ns
	}
	return r
})

// Lookup returns the namespace called name. The value is shared and must
// be treated as read-only.
func Lookup(name string) (value.Value, bool) {
	ns, ok := registry()[name]
	if !ok {
		return nil, false
	}
	return ns, true
}

// Names lists the namespace names, sorted.
func Names() []string {
	r := registry()
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// newNamespace builds a namespace from builtin functions and constants.
func newNamespace(name string, consts map[string]value.Value, fns map[string]func(value.Env, value.Args) (value.Value, error)) *value.Namespace {
	members := make(map[string]value.Value, len(consts)+len(fns))
	for k, v := range consts {
		members[k] = v
	}
	for k, fn := range fns {
		members[k] = &value.Builtin{Name: name + "." + k, Fn: fn}
	}
	return &value.Namespace{Name: name, Members: members}
}
