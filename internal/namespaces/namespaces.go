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

	"github.com/shoalgo/shoal/internal/value"
)

// registry holds the shared, immutable namespace values. Callers must not
// modify a returned namespace's Members map.
var registry = map[string]*value.Namespace{}

func register(ns *value.Namespace) { registry[ns.Name] = ns }

func init() {
	register(jsonNamespace())
	register(yamlNamespace())
	register(tomlNamespace())
	register(csvNamespace())
	register(mathNamespace())
	register(Config(nil))
}

// Lookup returns the namespace called name. The value is shared and must
// be treated as read-only.
func Lookup(name string) (value.Value, bool) {
	ns, ok := registry[name]
	if !ok {
		return nil, false
	}
	return ns, true
}

// Names lists the namespace names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
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
