package eval

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// Registry is every name a program can use without binding it: builtin
// commands, value functions, the evaluator's methods (per receiver kind)
// and the namespaces with their members, each one entry with its code,
// effect declaration and help. It is a value: built once by its embedder
// (NewRegistry; internal/stdlib.Registry is the standard set), passed to New in
// Options.Registry and to plan derivation in leash.Env.Registry (it
// implements leash.Registry), and never changed after, so one registry is
// shared read-only by every session of a process.
type Registry struct {
	builtins   map[string]*Builtin
	funcs      map[string]*Func
	methods    map[value.Kind]map[string]*Method
	namespaces map[string]*Namespace

	// What derivation reads, made from the entries above on the first
	// lookup (indexed): an embedder that never derives a plan (shoal -c)
	// never builds it.
	indexed sync.Once
	derive  map[string]leash.Builtin
	byType  map[string]map[string]leash.Method // receiver type name → method
	others  map[string]leash.Method            // a type's methods it does not list (glob)
	anyType map[string]leash.Method            // methods of every kind
	untyped map[string]leash.Method            // for a receiver of unknown type
	members map[string]map[string]leash.Method // namespace → member
}

// Part is one group of registry entries (a file's or a library package's);
// NewRegistry joins parts.
type Part struct {
	Builtins   []*Builtin
	Funcs      []*Func
	Methods    []*Method
	Namespaces []*Namespace
}

// Builtin adds a builtin command to the part.
func (p *Part) Builtin(b *Builtin) { p.Builtins = append(p.Builtins, b) }

// Func adds a value function to the part.
func (p *Part) Func(f *Func) { p.Funcs = append(p.Funcs, f) }

// Method adds a method to the part.
func (p *Part) Method(m *Method) { p.Methods = append(p.Methods, m) }

// Namespace adds a namespace to the part.
func (p *Part) Namespace(ns *Namespace) { p.Namespaces = append(p.Namespaces, ns) }

// Method is one method of the registry: `recv.Name(args)` for receivers of
// Kind (anyKind: every kind). Call is its code; nil annotates a method
// whose code is elsewhere (the value package's, value.LookupMethod, or
// the evaluator's dispatch) with its effects.
type Method struct {
	Kind value.Kind
	Name string
	Call HostMethod
	// Effects declares what a call does beyond its receiver and arguments
	// (plan derivation reads it through leash.Registry.Method); EffNone
	// when it touches nothing. A test fails when one is missing.
	Effects func(d *leash.Deriver)
	// Help is what `help NAME` shows for it.
	Help Help
}

// Namespace is one namespace of the registry: a name a program reads
// members of (`os.hostname`, `json.parse(s)`).
type Namespace struct {
	Name string
	// Pure: no member touches anything outside the evaluator (the data
	// namespaces json, yaml, toml, csv, math, config); Value holds the
	// members and Members is empty.
	Pure bool
	// Value is the namespace value a program reads (nil for config, which
	// is the session's own snapshot). For a namespace that is not Pure it
	// is built from Members.
	Value *value.Namespace
	// Members are the entries of a namespace whose members ask the host.
	Members []*Member
	// Help is what `help NAME` shows for the namespace.
	Help Help
}

// Member is one member of a namespace that is not pure: its value (a
// *value.Builtin), its effect declaration and its help.
type Member struct {
	Name    string
	Value   value.Value
	Effects func(d *leash.Deriver)
	Help    Help
}

// anyKind marks a method of every receiver kind.
const anyKind = value.Kind(255)

// NewRegistry joins parts into a registry. A name defined twice (a
// builtin, a function, a method of one kind, a namespace or a member) is
// an error.
func NewRegistry(parts ...*Part) (*Registry, error) {
	r := &Registry{
		builtins:   map[string]*Builtin{},
		funcs:      map[string]*Func{},
		methods:    map[value.Kind]map[string]*Method{},
		namespaces: map[string]*Namespace{},
	}
	var errs []error
	for _, p := range parts {
		for _, b := range p.Builtins {
			if _, dup := r.builtins[b.Name]; dup {
				errs = append(errs, fmt.Errorf("builtin %s defined twice", b.Name))
			}
			r.builtins[b.Name] = b
		}
		for _, f := range p.Funcs {
			if _, dup := r.funcs[f.Name]; dup {
				errs = append(errs, fmt.Errorf("function %s defined twice", f.Name))
			}
			r.funcs[f.Name] = f
		}
		for _, m := range p.Methods {
			if r.methods[m.Kind] == nil {
				r.methods[m.Kind] = map[string]*Method{}
			}
			if _, dup := r.methods[m.Kind][m.Name]; dup {
				errs = append(errs, fmt.Errorf("method %s.%s defined twice", kindName(m.Kind), m.Name))
			}
			r.methods[m.Kind][m.Name] = m
		}
		for _, ns := range p.Namespaces {
			if _, dup := r.namespaces[ns.Name]; dup {
				errs = append(errs, fmt.Errorf("namespace %s defined twice", ns.Name))
			}
			r.namespaces[ns.Name] = ns
		}
	}
	for _, ns := range r.namespaces {
		if ns.Pure {
			continue
		}
		members := make(map[string]value.Value, len(ns.Members))
		for _, m := range ns.Members {
			if _, dup := members[m.Name]; dup {
				errs = append(errs, fmt.Errorf("member %s.%s defined twice", ns.Name, m.Name))
			}
			members[m.Name] = m.Value
		}
		ns.Value = &value.Namespace{Name: ns.Name, Members: members}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("eval: registry: %w", err)
	}
	return r, nil
}

// kindName is a method kind's name for messages.
func kindName(k value.Kind) string {
	if k == anyKind {
		return "any"
	}
	return k.String()
}

// index builds what derivation reads from the entries; the lookups for
// derivation (Builtin, Method, Member) call it through r.indexed.
func (r *Registry) index() {
	r.derive = make(map[string]leash.Builtin, len(r.builtins)+len(r.funcs))
	for name := range r.builtins {
		r.derive[name] = r.deriveEntry(name)
	}
	for name := range r.funcs {
		r.derive[name] = r.deriveEntry(name)
	}
	r.byType = map[string]map[string]leash.Method{}
	r.anyType = map[string]leash.Method{}
	for k, set := range r.methods {
		for name, m := range set {
			lm := leash.Method{Effects: declared(kindName(k)+"."+name, m.Effects)}
			if k == anyKind {
				r.anyType[name] = lm
				continue
			}
			if r.byType[k.String()] == nil {
				r.byType[k.String()] = map[string]leash.Method{}
			}
			r.byType[k.String()][name] = lm
		}
	}
	// Every glob method but .pattern expands the glob first (callKnownMethod).
	r.others = map[string]leash.Method{value.KGlob.String(): {Effects: func(d *leash.Deriver) { d.ReceiverGlob() }}}
	// A receiver whose type derivation cannot tell: a method only one kind
	// has is taken to be that kind's (`.read` reads a path, `.ago` the
	// clock); a name several kinds share (`lines`, `size`) is not counted.
	owners := map[string]int{}
	for k := value.Kind(0); k < anyKind && k.String() != "unknown"; k++ {
		for _, name := range r.MethodNames(k) {
			owners[name]++
		}
	}
	r.untyped = map[string]leash.Method{}
	for k, set := range r.methods {
		if k == anyKind {
			continue
		}
		for name := range set {
			if owners[name] == 1 {
				r.untyped[name] = r.byType[k.String()][name]
			}
		}
	}
	r.members = map[string]map[string]leash.Method{}
	for _, ns := range r.namespaces {
		set := map[string]leash.Method{}
		for _, m := range ns.Members {
			set[m.Name] = leash.Method{Effects: declared(ns.Name+"."+m.Name, m.Effects)}
		}
		r.members[ns.Name] = set
	}
}

// declared is an entry's effect declaration; a missing one (a test fails
// on it) derives as opaque, never as "no effects".
func declared(name string, eff func(*leash.Deriver)) func(*leash.Deriver) {
	if eff != nil {
		return eff
	}
	return func(d *leash.Deriver) { d.Opaque(name + " declares no effects") }
}

// deriveEntry is what leash knows of name: the command builtin's and the
// value function's effect declarations, and the command's flags.
func (r *Registry) deriveEntry(name string) leash.Builtin {
	var out leash.Builtin
	if b, ok := r.builtins[name]; ok {
		out.Command = declared(name, b.Effects)
		out.Flags = b.Flags
		out.Quoted = b.Quoted
	}
	if f, ok := r.funcs[name]; ok {
		out.Call = declared(name, f.Effects)
	}
	return out
}

// Builtin looks up a command or value function for plan derivation
// (leash.Registry).
func (r *Registry) Builtin(name string) (leash.Builtin, bool) {
	r.indexed.Do(r.index)
	b, ok := r.derive[name]
	return b, ok
}

// Method looks up a method of a receiver type for plan derivation
// (leash.Registry): the type's own, then one of every kind, then what the
// type does with names it does not list; typ "" is a receiver of unknown
// type.
func (r *Registry) Method(typ, name string) (leash.Method, bool) {
	r.indexed.Do(r.index)
	if typ == "" {
		if m, ok := r.anyType[name]; ok {
			return m, true
		}
		m, ok := r.untyped[name]
		return m, ok
	}
	if m, ok := r.byType[typ][name]; ok {
		return m, true
	}
	if m, ok := r.anyType[name]; ok {
		return m, true
	}
	m, ok := r.others[typ]
	return m, ok
}

// Namespace reports a namespace name (leash.Registry).
func (r *Registry) Namespace(name string) bool {
	_, ok := r.namespaces[name]
	return ok
}

// Member looks up a namespace member for plan derivation (leash.Registry);
// every member of a pure namespace touches nothing.
func (r *Registry) Member(ns, name string) (leash.Method, bool) {
	n, ok := r.namespaces[ns]
	if !ok {
		return leash.Method{}, false
	}
	if n.Pure {
		return leash.Method{Effects: EffNone}, true
	}
	r.indexed.Do(r.index)
	m, ok := r.members[ns][name]
	return m, ok
}

// lookupBuiltin finds a builtin command.
func (r *Registry) lookupBuiltin(name string) (*Builtin, bool) {
	b, ok := r.builtins[name]
	return b, ok
}

// lookupFunc finds a value function.
func (r *Registry) lookupFunc(name string) (*Func, bool) {
	f, ok := r.funcs[name]
	return f, ok
}

// lookupHostMethod finds the evaluator's method name for kind k: the
// kind's own, else one of every kind.
func (r *Registry) lookupHostMethod(k value.Kind, name string) (HostMethod, bool) {
	if m, ok := r.methods[k][name]; ok && m.Call != nil {
		return m.Call, true
	}
	if m, ok := r.methods[anyKind][name]; ok && m.Call != nil {
		return m.Call, true
	}
	return nil, false
}

// namespace finds a namespace value (nil for config, the session's own).
func (r *Registry) namespace(name string) (*Namespace, bool) {
	ns, ok := r.namespaces[name]
	return ns, ok
}

// IsBuiltin reports whether name is a builtin command.
func (r *Registry) IsBuiltin(name string) bool { _, ok := r.builtins[name]; return ok }

// HidesResult reports whether a statement ending in the builtin name
// shows nothing (Builtin.Hidden).
func (r *Registry) HidesResult(name string) bool {
	b, ok := r.builtins[name]
	return ok && b.Hidden
}

// BuiltinNames lists the builtin commands, sorted.
func (r *Registry) BuiltinNames() []string { return registryKeys(r.builtins) }

// FuncNames lists the value functions (path, glob, save, run, ...),
// sorted. A name may also be a builtin command (now, save, run).
func (r *Registry) FuncNames() []string { return registryKeys(r.funcs) }

// names lists every builtin command and value function once, unsorted.
func (r *Registry) names() []string {
	out := make([]string, 0, len(r.builtins)+len(r.funcs))
	for n := range r.builtins {
		out = append(out, n)
	}
	for n := range r.funcs {
		if _, dup := r.builtins[n]; !dup {
			out = append(out, n)
		}
	}
	return out
}

// MethodNames lists the methods a receiver of kind k has: the value
// package's methods plus the registry's (path methods, `.save`), sorted
// and without duplicates.
func (r *Registry) MethodNames(k value.Kind) []string {
	names := value.MethodNames(k)
	for _, set := range []map[string]*Method{r.methods[k], r.methods[anyKind]} {
		for n := range set {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// NamespaceNames lists every namespace a program can name, sorted.
func (r *Registry) NamespaceNames() []string { return registryKeys(r.namespaces) }

// LookupNamespace resolves a namespace name as programs see it (config as
// an empty snapshot; a session reads its own).
func (r *Registry) LookupNamespace(name string) (value.Value, bool) {
	ns, ok := r.namespaces[name]
	if !ok {
		return nil, false
	}
	if ns.Value == nil {
		return namespaces.Config(nil), true
	}
	return ns.Value, true
}

// NamespaceMembers lists a namespace's members, sorted (nil for an unknown
// namespace).
func (r *Registry) NamespaceMembers(ns string) []string {
	v, ok := r.LookupNamespace(ns)
	if !ok {
		return nil
	}
	n, ok := v.(*value.Namespace)
	if !ok {
		return nil
	}
	return registryKeys(n.Members)
}

func registryKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
