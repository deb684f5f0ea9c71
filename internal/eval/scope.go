package eval

import "github.com/shoalgo/shoal/internal/value"

// binding is one named value in a scope.
type binding struct {
	name    string
	val     value.Value
	mutable bool
}

// scope is a lexical environment: a small ordered set of bindings plus its
// parent. Closures keep a pointer to the scope they were created in, so a
// captured `var` observes later assignments (capture by reference).
//
// Most scopes hold a handful of names and are scanned linearly; a scope
// that grows past indexThreshold (the session root, long scripts) builds a
// map index.
type scope struct {
	parent *scope
	vars   []binding
	index  map[string]int
	inline [2]binding // backing store for the first bindings
}

const indexThreshold = 12

func newScope(parent *scope) *scope {
	s := &scope{parent: parent}
	s.vars = s.inline[:0]
	return s
}

// declare binds name in this scope, replacing a same-scope binding.
func (s *scope) declare(name string, v value.Value, mutable bool) {
	if i := s.localIndex(name); i >= 0 {
		s.vars[i] = binding{name: name, val: v, mutable: mutable}
		return
	}
	s.vars = append(s.vars, binding{name: name, val: v, mutable: mutable})
	if s.index != nil {
		s.index[name] = len(s.vars) - 1
	} else if len(s.vars) > indexThreshold {
		s.index = make(map[string]int, len(s.vars)*2)
		for i := range s.vars {
			s.index[s.vars[i].name] = i
		}
	}
}

func (s *scope) localIndex(name string) int {
	if s.index != nil {
		if i, ok := s.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range s.vars {
		if s.vars[i].name == name {
			return i
		}
	}
	return -1
}

// lookup finds the innermost binding of name. The pointer is valid until
// the owning scope declares another name.
func (s *scope) lookup(name string) *binding {
	for sc := s; sc != nil; sc = sc.parent {
		if sc.index != nil {
			if i, ok := sc.index[name]; ok {
				return &sc.vars[i]
			}
			continue
		}
		for i := range sc.vars {
			if sc.vars[i].name == name {
				return &sc.vars[i]
			}
		}
	}
	return nil
}

// get returns the value bound to name.
func (s *scope) get(name string) (value.Value, bool) {
	if b := s.lookup(name); b != nil {
		return b.val, true
	}
	return nil, false
}

// names lists every visible name, innermost first, without duplicates.
func (s *scope) names() []string {
	seen := map[string]bool{}
	var out []string
	for sc := s; sc != nil; sc = sc.parent {
		for _, b := range sc.vars {
			if !seen[b.name] {
				seen[b.name] = true
				out = append(out, b.name)
			}
		}
	}
	return out
}
