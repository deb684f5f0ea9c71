package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// evalMatch tries each arm's patterns in order; binders live in a scope of
// their own per attempt, visible to the guard and the body.
func (t *thread) evalMatch(n *syntax.Match, sc *scope, m mode) (value.Value, error) {
	subj, err := t.eval(n.Subject, sc)
	if err != nil {
		return nil, err
	}
	for _, arm := range n.Arms {
		for _, p := range arm.Patterns {
			as := sc
			if binds(p) {
				as = newScope(sc)
			}
			ok, err := t.matchPattern(p, subj, as)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if arm.Guard != nil {
				g, err := t.eval(arm.Guard, as)
				if err != nil {
					return nil, err
				}
				pass, err := value.Truthy(g)
				if err != nil {
					return nil, withSpan(err, arm.Guard.Pos())
				}
				if !pass {
					continue
				}
			}
			return t.evalPos(arm.Body, as, m)
		}
	}
	return nil, errorf(codeType, "no match arm matches %s", value.InlineShort(subj, 200)).
		WithHint("add a wildcard arm: _ => ...")
}

// binds reports whether a pattern introduces names.
func binds(p syntax.Pattern) bool {
	switch x := p.(type) {
	case *syntax.BindPat:
		return true
	case *syntax.TypePat:
		return x.Binder != ""
	case *syntax.RecordPat:
		for _, f := range x.Fields {
			if f.Pat == nil || binds(f.Pat) {
				return true
			}
		}
	case *syntax.ListPat:
		if x.HasRest && x.Rest != "" && x.Rest != "_" {
			return true
		}
		for _, e := range x.Elems {
			if binds(e) {
				return true
			}
		}
	}
	return false
}

func (t *thread) matchPattern(p syntax.Pattern, v value.Value, sc *scope) (bool, error) {
	switch x := p.(type) {
	case *syntax.WildcardPat:
		return true, nil
	case *syntax.BindPat:
		sc.declare(x.Name, v, false)
		return true, nil
	case *syntax.LitPat:
		lit, err := t.eval(x.Value, sc)
		if err != nil {
			return false, err
		}
		return value.Equal(lit, v), nil
	case *syntax.RangePat:
		n, ok := v.(value.Int)
		if !ok {
			return false, nil
		}
		if x.Inclusive {
			return int64(n) >= x.Lo && int64(n) <= x.Hi, nil
		}
		return int64(n) >= x.Lo && int64(n) < x.Hi, nil
	case *syntax.TypePat:
		if !typeMatches(x.Type, v) {
			return false, nil
		}
		if x.Binder != "" && x.Binder != "_" {
			sc.declare(x.Binder, v, false)
		}
		return true, nil
	case *syntax.RecordPat:
		r, ok := v.(*value.Record)
		if !ok {
			return false, nil
		}
		for _, f := range x.Fields {
			fv, ok := r.Get(f.Key)
			if !ok {
				return false, nil
			}
			if f.Pat == nil {
				sc.declare(f.Key, fv, false)
				continue
			}
			if ok, err := t.matchPattern(f.Pat, fv, sc); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	case *syntax.ListPat:
		l, ok := v.(*value.List)
		if !ok {
			return false, nil
		}
		n := len(x.Elems)
		if len(l.Items) < n || (!x.HasRest && len(l.Items) != n) {
			return false, nil
		}
		for i, e := range x.Elems {
			if ok, err := t.matchPattern(e, l.Items[i], sc); !ok || err != nil {
				return false, err
			}
		}
		if x.HasRest && x.Rest != "" && x.Rest != "_" {
			rest := append([]value.Value(nil), l.Items[n:]...)
			sc.declare(x.Rest, value.NewList(rest), false)
		}
		return true, nil
	}
	return false, errorf(codeType, "unsupported pattern %T", p)
}

// typeMatches reports whether v has the named type.
func typeMatches(name string, v value.Value) bool {
	switch name {
	case "any":
		return true
	case "number", "num":
		k := v.Kind()
		return k == value.KInt || k == value.KFloat
	case "fn", "function":
		return v.Kind() == value.KClosure
	}
	k, ok := value.KindByName(name)
	return ok && v.Kind() == k
}
