package eval

import (
	"github.com/shoalgo/shoal/internal/value"
)

// Binding is one session binding as introspection sees it.
type Binding struct {
	Name  string
	Value value.Value
	// Callable marks functions and aliases (closures, command refs).
	Callable bool
	// Mutable marks a binding declared with var.
	Mutable bool
}

// Bindings lists the session's bindings, sorted by name. It takes the
// session lock.
func (in *Interp) Bindings() []Binding {
	release := in.holdAlways()
	defer release()
	names := in.names()
	out := make([]Binding, 0, len(names))
	for _, n := range names {
		b := in.root.lookup(n)
		if b == nil {
			continue
		}
		v := b.val
		_, closure := v.(*Closure)
		_, alias := v.(*CmdRef)
		out = append(out, Binding{Name: n, Value: v, Callable: closure || alias, Mutable: b.mutable})
	}
	return out
}
