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
	var walk func(n syntax.Node)
	exprs := func(xs []syntax.Expr) {
		for _, x := range xs {
			walk(x)
		}
	}
	block := func(b *syntax.Block) {
		if b != nil {
			walk(b)
		}
	}
	cmdArg := func(a *syntax.CmdArg) {
		for ; a != nil; a = a.Value {
			if a.X != nil {
				walk(a.X)
			}
		}
	}
	walk = func(n syntax.Node) {
		if found || n == nil {
			return
		}
		switch e := n.(type) {
		case *syntax.Lambda, *syntax.FnStmt, *syntax.Spawn, *syntax.UseStmt:
			found = true
		case *syntax.IntLit, *syntax.FloatLit, *syntax.StrLit, *syntax.BoolLit, *syntax.NullLit,
			*syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit, *syntax.DateTimeLit,
			*syntax.RegexLit, *syntax.Var, *syntax.BreakStmt, *syntax.ContinueStmt,
			*syntax.LangBlock, *syntax.AliasStmt:
		case *syntax.Block:
			for _, st := range e.Stmts {
				walk(st)
			}
		case *syntax.ExprStmt:
			walk(e.X)
		case *syntax.LetStmt:
			walk(e.Init)
		case *syntax.AssignStmt:
			walk(e.Target)
			walk(e.Value)
		case *syntax.ReturnStmt:
			if e.Value != nil {
				walk(e.Value)
			}
		case *syntax.ForStmt:
			walk(e.Iter)
			block(e.Body)
		case *syntax.WhileStmt:
			walk(e.Cond)
			block(e.Body)
		case *syntax.StrInterp:
			for _, p := range e.Parts {
				if p.X != nil {
					walk(p.X)
				}
			}
		case *syntax.Field:
			walk(e.X)
		case *syntax.Index:
			walk(e.X)
			walk(e.Index)
		case *syntax.MethodCall:
			if e.Trailing != nil {
				found = true
				return
			}
			walk(e.X)
			for _, a := range e.Args {
				walk(a.Value)
			}
		case *syntax.Call:
			if v, ok := e.Fn.(*syntax.Var); ok && v.Name == "source" {
				found = true
				return
			}
			if e.Trailing != nil {
				found = true
				return
			}
			walk(e.Fn)
			for _, a := range e.Args {
				walk(a.Value)
			}
		case *syntax.List:
			exprs(e.Elems)
		case *syntax.Record:
			for _, f := range e.Fields {
				walk(f.Value)
			}
		case *syntax.If:
			walk(e.Cond)
			block(e.Then)
			if e.Else != nil {
				walk(e.Else)
			}
		case *syntax.Match:
			walk(e.Subject)
			for _, a := range e.Arms {
				for _, p := range a.Patterns {
					if lp, ok := p.(*syntax.LitPat); ok {
						walk(lp.Value)
					}
				}
				if a.Guard != nil {
					walk(a.Guard)
				}
				walk(a.Body)
			}
		case *syntax.Try:
			block(e.Body)
			block(e.Handler)
		case *syntax.Catch:
			walk(e.X)
			walk(e.Handler)
		case *syntax.With:
			for _, w := range e.Entries {
				walk(w.Value)
			}
			block(e.Body)
		case *syntax.Binary:
			walk(e.L)
			walk(e.R)
		case *syntax.Unary:
			walk(e.X)
		case *syntax.Range:
			walk(e.Lo)
			walk(e.Hi)
		case *syntax.Cmd:
			c := e.Call
			if c.Background || c.Trailing != nil || c.Head.Text == "source" {
				found = true
				return
			}
			for _, p := range c.Env {
				cmdArg(p.Value)
			}
			for _, a := range c.Args {
				cmdArg(a)
			}
			for _, r := range c.Redirects {
				cmdArg(r.Target)
			}
		default:
			found = true
		}
	}
	walk(root)
	return found
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
