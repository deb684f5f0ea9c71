package kernel

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// maxViewFields bounds the record fields a completion view keeps per name.
const maxViewFields = 256

// nameView is a snapshot of a session's bindings taken after each exec, so
// completion never reads the evaluator while an exec runs.
type nameView struct {
	values   []string // value bindings
	commands []string // functions and aliases
	kinds    map[string]value.Kind
	fields   map[string][]string // record bindings' field names
	fns      map[string]*syntax.FnDecl
	aliases  map[string]*syntax.CmdCall
}

// viewFrom snapshots the bindings bs, which only the turn holder (or the
// creator of a fresh session) reads.
func viewFrom(bs []eval.Binding) nameView {
	// The maps are made when first needed (a nil map reads as empty): a
	// view is taken after every exec, and most sessions bind few names.
	var v nameView
	for _, b := range bs {
		if b.Callable {
			v.commands = append(v.commands, b.Name)
			switch x := b.Value.(type) {
			case *eval.Closure:
				if v.fns == nil {
					v.fns = map[string]*syntax.FnDecl{}
				}
				body, _ := x.Body.(*syntax.Block)
				if body != nil {
					v.fns[b.Name] = &syntax.FnDecl{Name: x.Name, Params: x.Params, Rest: x.Rest, Body: body, Doc: x.Doc}
				} else {
					v.fns[b.Name] = nil
				}
			case *eval.CmdRef:
				if v.aliases == nil {
					v.aliases = map[string]*syntax.CmdCall{}
				}
				v.aliases[b.Name] = x.Call
			}
			continue
		}
		v.values = append(v.values, b.Name)
		if b.Value != nil {
			if v.kinds == nil {
				v.kinds = make(map[string]value.Kind, len(bs))
			}
			v.kinds[b.Name] = b.Value.Kind()
		}
		if r, ok := b.Value.(*value.Record); ok {
			if v.fields == nil {
				v.fields = map[string][]string{}
			}
			keys := r.Keys()
			v.fields[b.Name] = append([]string(nil), keys[:min(len(keys), maxViewFields)]...)
		}
	}
	return v
}

// view returns the session's latest binding snapshot.
func (s *session) view() nameView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names
}

func (v *nameView) isBound(name string) bool {
	_, ok := v.kinds[name]
	if !ok {
		for _, n := range v.values {
			if n == name {
				return true
			}
		}
	}
	return ok
}

// typeOf names the type of a bound value the way leash expects.
func (v *nameView) typeOf(name string) string {
	k, ok := v.kinds[name]
	if !ok {
		return ""
	}
	return k.String()
}
