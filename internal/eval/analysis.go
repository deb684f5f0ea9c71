package eval

import "github.com/shoalgo/shoal/internal/syntax"

// Static facts about syntax subtrees, computed once per node and cached on
// the session. They let the evaluator reuse scopes: a scope can be
// recycled once its code has finished, unless a closure may have captured
// it.

type captureKey struct{ n syntax.Node }

// mayCapture reports whether evaluating n could create a closure (or
// source a file) that keeps a reference to the current scope. It errs on
// the side of true.
func (in *Interp) mayCapture(n syntax.Node) bool {
	if v, ok := in.cache.Load(captureKey{n}); ok {
		return v.(bool)
	}
	c := captures(n)
	in.cache.Store(captureKey{n}, c)
	return c
}

func captures(root syntax.Node) bool {
	found := false
	known := syntax.Walk(root, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch e := n.(type) {
		case *syntax.Lambda, *syntax.FnStmt, *syntax.Spawn, *syntax.UseStmt:
			found = true
		case *syntax.MethodCall:
			found = e.Trailing != nil
		case *syntax.Call:
			v, ok := e.Fn.(*syntax.Var)
			found = e.Trailing != nil || ok && v.Name == "source"
		case *syntax.Cmd:
			c := e.Call
			found = c == nil || c.Background || c.Trailing != nil || c.Head == nil || c.Head.Text == "source"
		case *syntax.AliasStmt:
			return false // the target is stored, not evaluated
		}
		return !found
	})
	return found || !known
}

// getScope returns an empty scope with the given parent, recycled when
// possible.
func (t *thread) getScope(parent *scope) *scope {
	if n := len(t.free); n > 0 {
		s := t.free[n-1]
		t.free = t.free[:n-1]
		s.parent = parent
		return s
	}
	return newScope(parent)
}

// putScope recycles a scope no closure can reference.
func (t *thread) putScope(s *scope) {
	if len(t.free) >= 64 {
		return
	}
	s.reset()
	s.parent = nil
	t.free = append(t.free, s)
}

// reset empties the scope for reuse.
func (s *scope) reset() {
	clear(s.vars)
	s.vars = s.vars[:0]
	s.index = nil
}
