package eval

import (
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

func (t *thread) evalIf(n *syntax.If, sc *scope, m mode) (value.Value, error) {
	for {
		c, err := t.eval(n.Cond, sc)
		if err != nil {
			return nil, err
		}
		ok, err := value.Truthy(c)
		if err != nil {
			return nil, withSpan(err, n.Cond.Pos())
		}
		if ok {
			return t.evalBlock(n.Then, sc, m)
		}
		switch e := n.Else.(type) {
		case nil:
			return value.Nil, nil
		case *syntax.If:
			n = e
		case *syntax.Block:
			return t.evalBlock(e, sc, m)
		default:
			return t.evalPos(e, sc, m)
		}
	}
}

// recoverable extracts the language error a catch may handle; flow
// signals and cancellation are not recoverable.
func recoverable(err error) (*value.Error, bool) {
	if _, isFlow := err.(*flow); isFlow {
		return nil, false
	}
	e, ok := langError(err).(*value.Error)
	if !ok || e.Code == value.CodeCancelled {
		return nil, false
	}
	return e, true
}

func (t *thread) evalTry(n *syntax.Try, sc *scope, m mode) (value.Value, error) {
	v, err := t.evalBlock(n.Body, sc, m)
	if err == nil {
		return v, nil
	}
	e, ok := recoverable(err)
	if !ok {
		return nil, err
	}
	hs := sc
	if n.Binder != "" {
		hs = newScope(sc)
		hs.declare(n.Binder, e, false)
	}
	return t.evalBlock(n.Handler, hs, m)
}

func (t *thread) evalCatch(n *syntax.Catch, sc *scope) (value.Value, error) {
	v, err := t.eval(n.X, sc)
	if err == nil {
		return v, nil
	}
	e, ok := recoverable(err)
	if !ok {
		return nil, err
	}
	hs := sc
	if n.Binder != "" {
		hs = newScope(sc)
		hs.declare(n.Binder, e, false)
	}
	if b, ok := n.Handler.(*syntax.Block); ok {
		return t.evalBlock(b, hs, modeValue)
	}
	return t.eval(n.Handler, hs)
}

// evalWith runs a body with a temporarily changed working directory and
// environment. The changes live on a child thread, so they end with the
// block whether it succeeds or fails.
func (t *thread) evalWith(n *syntax.With, sc *scope, m mode) (value.Value, error) {
	c := t.child()
	for _, e := range n.Entries {
		v, err := t.eval(e.Value, sc)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "cwd":
			s, err := pathText(v)
			if err != nil {
				return nil, withSpan(err, e.Value.Pos())
			}
			dir := c.abs(s)
			fi, err := c.host.Stat(c.ctx, dir)
			if err != nil {
				return nil, withSpan(hostError(err), e.Value.Pos())
			}
			if !fi.IsDir() {
				return nil, errorf(codeArg, "with cwd: %s is not a directory", s).At(e.Value.Pos())
			}
			c.dir = dir
		case "env":
			r, ok := v.(*value.Record)
			if !ok {
				return nil, errorf(codeType, "with env: expects a record, got %s", value.TypeName(v)).At(e.Value.Pos())
			}
			for i, k := range r.Keys() {
				s, err := argText(r.Values()[i])
				if err != nil {
					return nil, withSpan(err, e.Value.Pos())
				}
				c.env = withEnv(c.env, k, s)
			}
		case "reef":
			r, ok := v.(*value.Record)
			if !ok {
				return nil, errorf(codeType, "with reef: expects a record of tool constraints, got %s", value.TypeName(v)).At(e.Value.Pos())
			}
			tools := make(map[string]string, len(r.Keys()))
			for i, k := range r.Keys() {
				s, ok := r.Values()[i].(value.Str)
				if !ok {
					return nil, errorf(codeType, "with reef: the constraint for `%s` must be a str, got %s", k, value.TypeName(r.Values()[i])).At(e.Value.Pos())
				}
				tools[k] = string(s)
			}
			// Innermost first; the slice is replaced, so the outer
			// thread's overrides are untouched when the block ends.
			c.reefOver = append([]reef.Scope{reef.Override(tools)}, t.reefOver...)
		default:
			return nil, errorf(codeArg, "unknown with key `%s` (expected cwd, env or reef)", e.Key).At(e.Span)
		}
	}
	return c.evalBlock(n.Body, sc, m)
}

// pathText accepts a str or path as a filesystem name.
func pathText(v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return string(x), nil
	case value.Path:
		return string(x), nil
	}
	return "", errorf(codeType, "expected a path or str, got %s", value.TypeName(v))
}
