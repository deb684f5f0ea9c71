package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

var compoundOps = map[syntax.AssignOp]syntax.BinOp{
	syntax.AssignAdd: syntax.OpAdd,
	syntax.AssignSub: syntax.OpSub,
	syntax.AssignMul: syntax.OpMul,
	syntax.AssignDiv: syntax.OpDiv,
}

// combine applies an assignment operator to the old and new values.
func (t *thread) combine(op syntax.AssignOp, old, rhs value.Value) (value.Value, error) {
	if op == syntax.AssignSet {
		return rhs, nil
	}
	bop := compoundOps[op]
	if a, ok := old.(value.Int); ok {
		if b, ok := rhs.(value.Int); ok {
			if v, ok := intFast(bop, int64(a), int64(b)); ok {
				return v, nil
			}
		}
	}
	return t.binaryReserved(bop, old, rhs)
}

// assign performs `target op value`. Values are immutable, so assigning a
// field or index of a `var` rebuilds the containers along the path and
// rebinds the variable (copy-on-write).
func (t *thread) assign(s *syntax.AssignStmt, sc *scope) error {
	rhs, err := t.eval(s.Value, sc)
	if err != nil {
		return shellAssignHint(s, sc, err)
	}
	switch tg := s.Target.(type) {
	case *syntax.Var:
		b := sc.lookup(tg.Name)
		if b == nil {
			return t.undeclaredAssign(tg.Name, sc)
		}
		if !b.mutable {
			return immutable(tg.Name)
		}
		v, err := t.keep(t.combine(s.Op, b.val, rhs))
		if err != nil {
			return err
		}
		b = sc.lookup(tg.Name) // the binding may have moved while rhs ran
		if t.in.meter != nil && t.in.rootBinding(tg.Name, b) {
			if err := t.bindRoot(tg.Name, v); err != nil {
				return err
			}
		}
		b.val = v
		return nil
	case *syntax.Field:
		if v, ok := tg.X.(*syntax.Var); ok && v.Name == "env" && sc.lookup("env") == nil {
			return t.assignEnv(tg.Name, s.Op, rhs)
		}
	}
	root, path, err := t.assignPath(s.Target, sc)
	if err != nil {
		return err
	}
	b := sc.lookup(root.Name)
	if b == nil {
		return t.undefinedVar(root.Name, sc)
	}
	if !b.mutable {
		return immutable(root.Name)
	}
	nv, err := t.keep(t.update(b.val, path, func(old value.Value) (value.Value, error) {
		return t.keep(t.combine(s.Op, old, rhs))
	}))
	if err != nil {
		return err
	}
	b = sc.lookup(root.Name)
	if t.in.meter != nil && t.in.rootBinding(root.Name, b) {
		if err := t.bindRoot(root.Name, nv); err != nil {
			return err
		}
	}
	b.val = nv
	return nil
}

func immutable(name string) *value.Error {
	return errorf(codeType, "cannot assign to `%s`: it is declared with let", name).
		WithHint("declare it with var to make it mutable")
}

// pathStep is one field or index step of an assignment target.
type pathStep struct {
	field string
	index value.Value // nil for a field step
}

// assignPath flattens `a.b[i].c` into its root variable and steps.
func (t *thread) assignPath(x syntax.Expr, sc *scope) (*syntax.Var, []pathStep, error) {
	switch e := x.(type) {
	case *syntax.Var:
		return e, nil, nil
	case *syntax.Field:
		root, path, err := t.assignPath(e.X, sc)
		if err != nil {
			return nil, nil, err
		}
		return root, append(path, pathStep{field: e.Name}), nil
	case *syntax.Index:
		root, path, err := t.assignPath(e.X, sc)
		if err != nil {
			return nil, nil, err
		}
		iv, err := t.eval(e.Index, sc)
		if err != nil {
			return nil, nil, err
		}
		return root, append(path, pathStep{index: iv}), nil
	}
	return nil, nil, errorf(codeType, "cannot assign to this expression").At(x.Pos())
}

// update returns container with the value at path replaced by f(old).
func (t *thread) update(container value.Value, path []pathStep, f func(value.Value) (value.Value, error)) (value.Value, error) {
	if len(path) == 0 {
		return f(container)
	}
	step := path[0]
	if step.index == nil {
		r, ok := container.(*value.Record)
		if !ok {
			return nil, errorf(codeType, "cannot set field `%s` on %s", step.field, value.TypeName(container))
		}
		old, ok := r.Get(step.field)
		if !ok {
			if len(path) > 1 {
				return nil, missingField(r, step.field)
			}
			old = value.Nil
		}
		nv, err := t.update(old, path[1:], f)
		if err != nil {
			return nil, err
		}
		return r.With(step.field, nv), nil
	}
	switch c := container.(type) {
	case *value.List:
		i, err := intIndex(step.index, len(c.Items), "list")
		if err != nil {
			return nil, err
		}
		nv, err := t.update(c.Items[i], path[1:], f)
		if err != nil {
			return nil, err
		}
		items := append([]value.Value(nil), c.Items...)
		items[i] = nv
		return value.NewList(items), nil
	case *value.Record:
		k, ok := step.index.(value.Str)
		if !ok {
			return nil, errorf(codeType, "record index must be str, got %s", value.TypeName(step.index))
		}
		return t.update(c, append([]pathStep{{field: string(k)}}, path[1:]...), f)
	}
	return nil, errorf(codeType, "cannot assign into %s by index", value.TypeName(container))
}

// assignEnv sets a session environment variable: `env.NAME = value`.
func (t *thread) assignEnv(name string, op syntax.AssignOp, rhs value.Value) error {
	if t.fnDepth > 0 {
		return errorf(codeCustom, "cannot set env.%s inside a function body", name).
			WithHint("scope it with `with env: {...} { ... }` instead")
	}
	if op != syntax.AssignSet {
		return errorf(codeType, "env.%s only supports `=`", name)
	}
	if rhs.Kind() == value.KNull {
		t.env = withoutEnv(t.env, name)
		return nil
	}
	s, err := argText(rhs)
	if err != nil {
		return err
	}
	t.env = withEnv(t.env, name, s)
	return nil
}

func withoutEnv(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			continue
		}
		out = append(out, kv)
	}
	return out
}
