package eval

import "github.com/shoalgo/shoal/internal/value"

// The registry's help as editor tooling reads it (the language server's
// hover and signature help): the same text `help NAME` renders, and the
// one-line synopsis of a callable name.

// HelpText renders the help of name as `help NAME` shows it: a topic, a
// builtin, a function, a method, a type, a namespace or `ns.member`.
func (r *Registry) HelpText(name string) (string, bool) { return r.helpFor(name) }

// Usage is the synopsis of a value function or builtin command called
// name ("path(TEXT)", "ls [PATH...]"), the function's first.
func (r *Registry) Usage(name string) (string, bool) {
	if f, ok := r.funcs[name]; ok && f.Help.Usage != "" {
		return f.Help.Usage, true
	}
	if b, ok := r.builtins[name]; ok && b.Help.Usage != "" {
		return b.Help.Usage, true
	}
	return "", false
}

// MethodUsage is the synopsis of the method called name (".sort_by(f)"):
// the registry entry's, else the value package's.
func (r *Registry) MethodUsage(name string) (string, bool) {
	if m, ok := r.methodEntry(name); ok && m.Help.Usage != "" {
		return m.Help.Usage, true
	}
	if doc, ok := value.MethodHelp(name); ok && doc.Usage != "" {
		return doc.Usage, true
	}
	return "", false
}

// IsMethod reports whether any kind has a method called name.
func (r *Registry) IsMethod(name string) bool {
	if len(value.MethodOwners(name)) > 0 {
		return true
	}
	return len(r.methodKinds(name)) > 0
}

// AllMethods lists every method name of every kind, value package and
// registry entries alike, unsorted and possibly repeated.
func (r *Registry) AllMethods() []string {
	out := value.AllMethodNames()
	for _, set := range r.methods {
		for n := range set {
			out = append(out, n)
		}
	}
	return out
}
