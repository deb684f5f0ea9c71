package eval

import (
	"slices"
	"sort"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// MethodNames lists the methods a receiver of kind k has: the value
// package's methods plus the evaluator's host methods (path methods,
// `.save`), sorted and without duplicates.
func MethodNames(k value.Kind) []string {
	names := value.MethodNames(k)
	for _, set := range []map[string]HostMethod{hostMethodMap()[k], hostMethodMap()[anyKind]} {
		for n := range set {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// evalNamespaces are the namespaces the evaluator answers itself, because
// their members ask the host: os, http and secret.
var evalNamespaces = []*value.Namespace{osNamespace, httpNamespace, secretNamespace}

// NamespaceNames lists every namespace a program can name, including the
// evaluator's own (evalNamespaces), sorted.
func NamespaceNames() []string {
	names := append([]string(nil), namespaces.Names()...)
	for _, ns := range evalNamespaces {
		names = append(names, ns.Name)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// LookupNamespace resolves a namespace name as programs see it.
func LookupNamespace(name string) (value.Value, bool) {
	for _, ns := range evalNamespaces {
		if name == ns.Name {
			return ns, true
		}
	}
	return namespaces.Lookup(name)
}

// NamespaceMembers lists a namespace's members, sorted (nil for an unknown
// namespace).
func NamespaceMembers(ns string) []string {
	v, ok := LookupNamespace(ns)
	if !ok {
		return nil
	}
	n, ok := v.(*value.Namespace)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(n.Members))
	for name := range n.Members {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Binding is one session binding as introspection sees it.
type Binding struct {
	Name  string
	Value value.Value
	// Callable marks functions and aliases (closures, command refs).
	Callable bool
}

// Bindings lists the session's bindings, sorted by name. It takes the
// session lock.
func (in *Interp) Bindings() []Binding {
	release := in.holdAlways()
	defer release()
	names := in.names()
	out := make([]Binding, 0, len(names))
	for _, n := range names {
		v, ok := in.root.get(n)
		if !ok {
			continue
		}
		_, closure := v.(*Closure)
		_, alias := v.(*CmdRef)
		out = append(out, Binding{Name: n, Value: v, Callable: closure || alias})
	}
	return out
}
