package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// evalArgs evaluates call arguments left to right; a trailing block
// becomes a final zero-parameter closure.
func (t *thread) evalArgs(args []*syntax.Arg, trailing *syntax.Block, sc *scope) (value.Args, error) {
	var out value.Args
	if n := len(args); n > 0 || trailing != nil {
		out.Pos = make([]value.Value, 0, n+1)
	}
	for _, a := range args {
		v, err := t.eval(a.Value, sc)
		if err != nil {
			return value.Args{}, err
		}
		if a.Name != "" {
			out.Named = append(out.Named, value.NamedArg{Name: a.Name, Value: v})
		} else {
			out.Pos = append(out.Pos, v)
		}
	}
	if trailing != nil {
		out.Pos = append(out.Pos, &Closure{Body: trailing, env: sc})
	}
	return out, nil
}

// evalCall evaluates `f(args)`.
func (t *thread) evalCall(n *syntax.Call, sc *scope) (value.Value, error) {
	var fn value.Value
	if v, ok := n.Fn.(*syntax.Var); ok {
		if b := sc.lookup(v.Name); b != nil {
			fn = b.val
		} else {
			return t.callUnbound(v, n, sc)
		}
	} else {
		var err error
		if fn, err = t.eval(n.Fn, sc); err != nil {
			return nil, err
		}
	}
	if c, ok := fn.(*Closure); ok && n.Trailing == nil {
		return t.callClosureArgs(c, n.Args, sc)
	}
	args, err := t.evalArgs(n.Args, n.Trailing, sc)
	if err != nil {
		return nil, err
	}
	v, err := t.callValue(fn, args.Pos, args.Named, n.Span)
	if _, closure := fn.(*Closure); closure {
		return v, err // produced (and charged) inside the body
	}
	return t.keep(v, err)
}

// callClosureArgs evaluates positional arguments onto the thread's
// argument stack (no per-call slice) and calls c. Named arguments take the
// general path.
func (t *thread) callClosureArgs(c *Closure, args []*syntax.Arg, sc *scope) (value.Value, error) {
	for _, a := range args {
		if a.Name != "" {
			va, err := t.evalArgs(args, nil, sc)
			if err != nil {
				return nil, err
			}
			return t.callClosure(c, va.Pos, va.Named)
		}
	}
	base := len(t.stack)
	for _, a := range args {
		v, err := t.eval(a.Value, sc)
		if err != nil {
			t.popStack(base)
			return nil, err
		}
		t.stack = append(t.stack, v)
	}
	v, err := t.callClosure(c, t.stack[base:len(t.stack):len(t.stack)], nil)
	t.popStack(base)
	return v, err
}

func (t *thread) popStack(base int) {
	clear(t.stack[base:])
	t.stack = t.stack[:base]
}

// callUnbound handles `name(args)` where name has no binding: evaluator
// functions (path, glob, assert, retry, ...), then builtin commands called
// with values, then a namespace constant error.
func (t *thread) callUnbound(v *syntax.Var, n *syntax.Call, sc *scope) (value.Value, error) {
	if f, ok := t.reg().lookupFunc(v.Name); ok {
		args, err := t.evalArgs(n.Args, n.Trailing, sc)
		if err != nil {
			return nil, err
		}
		return t.keep(f.Call(t.funcCall(v.Name), args))
	}
	if b, ok := t.reg().lookupBuiltin(v.Name); ok {
		args, err := t.evalArgs(n.Args, n.Trailing, sc)
		if err != nil {
			return nil, err
		}
		call := &BuiltinCall{Name: v.Name, Args: args.Pos, t: t, sc: sc}
		for _, na := range args.Named {
			call.Flags = append(call.Flags, Flag{Name: na.Name, Value: na.Value})
		}
		return t.keep(t.invokeBuiltin(b, call, modeValue, nil))
	}
	return nil, t.undefinedVar(v.Name, sc)
}

// callValue invokes any callable value.
func (t *thread) callValue(fn value.Value, pos []value.Value, named []value.NamedArg, span syntax.Span) (value.Value, error) {
	switch f := fn.(type) {
	case *Closure:
		return t.callClosure(f, pos, named)
	case *value.Builtin:
		if err := t.enter(); err != nil {
			return nil, err
		}
		v, err := f.Fn(t, value.Args{Pos: pos, Named: named})
		t.depth--
		return v, err
	case *CmdRef:
		extra := make([]cmdValue, 0, len(pos)+len(named))
		for _, p := range pos {
			extra = append(extra, cmdValue{v: p})
		}
		for _, na := range named {
			// A named argument is a long flag: true is the bare flag,
			// false leaves it out, anything else is its value.
			switch na.Value {
			case value.Bool(true):
				extra = append(extra, cmdValue{flag: na.Name})
			case value.Bool(false):
			default:
				extra = append(extra, cmdValue{flag: na.Name, v: na.Value})
			}
		}
		return t.runCmd(f.Call, nil, modeValue, &cmdOpts{extra: extra})
	}
	return nil, errorf(codeType, "%s is not callable", value.TypeName(fn))
}

func (t *thread) enter() error {
	t.depth++
	if t.depth > maxEvalDepth {
		t.depth--
		return tooDeep()
	}
	if t.ticks++; t.ticks&1023 == 0 {
		if err := t.checkpoint(); err != nil {
			t.depth--
			return err
		}
	}
	return nil
}

// callClosure binds arguments and runs a closure body. Named arguments
// bind by parameter name; positional arguments fill the remaining
// parameters in order; then defaults; surplus positionals go to the rest
// parameter or are an error.
func (t *thread) callClosure(c *Closure, pos []value.Value, named []value.NamedArg) (value.Value, error) {
	return t.callClosureMode(c, pos, named, modeValue)
}

// callClosureMode is callClosure with the body run in mode m: modeValue
// for a call whose result is used, modeStmt for one made for its effects
// (`.each`), where the body is a statement as a for loop's body is.
func (t *thread) callClosureMode(c *Closure, pos []value.Value, named []value.NamedArg, m mode) (value.Value, error) {
	if err := t.enter(); err != nil {
		return nil, err
	}
	var sc *scope
	if c.recyclable(t.in) {
		sc = t.getScope(c.env)
		defer func() { t.depth--; t.putScope(sc) }()
	} else {
		sc = newScope(c.env)
		defer func() { t.depth-- }()
	}
	if err := t.bindParams(c, sc, pos, named); err != nil {
		return nil, err
	}
	t.fnDepth++
	var v value.Value
	var err error
	if b, ok := c.Body.(*syntax.Block); ok {
		v, err = t.evalStmts(b.Stmts, sc, m)
	} else if m != modeValue {
		v, err = t.evalPos(c.Body, sc, m)
	} else {
		v, err = t.eval(c.Body, sc)
	}
	t.fnDepth--
	if err != nil {
		if f, ok := err.(*flow); ok {
			switch f.kind {
			case flowReturn:
				return f.val, nil
			case flowExit:
				return nil, err
			}
			return nil, errorf(codeType, "%s", f.Error())
		}
		return nil, err
	}
	return v, nil
}

func (t *thread) bindParams(c *Closure, sc *scope, pos []value.Value, named []value.NamedArg) error {
	for _, na := range named {
		if paramIndex(c.Params, na.Name) < 0 {
			return errorf(codeArg, "unknown argument `%s`", na.Name).WithHint(signatureHint(c))
		}
	}
	nNamed := 0
	for _, p := range c.Params {
		if _, ok := namedArg(named, p.Name); ok {
			nNamed++
		}
	}
	if c.Rest == nil && len(pos) > len(c.Params)-nNamed {
		return errorf(codeArg, "expected %s, got %d", plural(len(c.Params)-nNamed, "argument"), len(pos)).WithHint(signatureHint(c))
	}
	next := 0
	for _, p := range c.Params {
		v, ok := namedArg(named, p.Name)
		if !ok && next < len(pos) {
			v, ok = pos[next], true
			next++
		}
		if !ok {
			if p.Default == nil {
				return errorf(codeArg, "missing argument `%s`", p.Name).WithHint(signatureHint(c))
			}
			dv, err := t.eval(p.Default, sc)
			if err != nil {
				return err
			}
			v = dv
		}
		if p.Type != nil {
			cv, err := coerceType(v, p.Type)
			if err != nil {
				return bindError(err, p.Name)
			}
			v = cv
		}
		sc.declare(p.Name, v, false)
	}
	if c.Rest != nil {
		var items []value.Value
		if next < len(pos) {
			items = make([]value.Value, 0, len(pos)-next)
			for _, v := range pos[next:] {
				if et := restElemType(c.Rest); et != nil {
					cv, err := coerceType(v, et)
					if err != nil {
						return bindError(err, c.Rest.Name)
					}
					v = cv
				}
				items = append(items, v)
			}
		}
		sc.declare(c.Rest.Name, value.NewList(items), false)
	}
	return nil
}

// restElemType is the element type of a rest parameter: T for
// `...xs: list<T>` and for `...xs: T`.
func restElemType(p *syntax.Param) *syntax.TypeExpr {
	if p.Type == nil {
		return nil
	}
	if p.Type.Name == "list" {
		if len(p.Type.Args) == 1 {
			return p.Type.Args[0]
		}
		return nil
	}
	return p.Type
}

func bindError(err error, param string) error {
	e, ok := err.(*value.Error)
	if !ok {
		return err
	}
	if e.Code != codeArg {
		ne := errorf(codeArg, "argument `%s`: %s", param, e.Msg)
		ne.Hint = e.Hint
		return ne
	}
	return e
}

func paramIndex(ps []*syntax.Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

func namedArg(named []value.NamedArg, name string) (value.Value, bool) {
	for _, na := range named {
		if na.Name == name {
			return na.Value, true
		}
	}
	return nil, false
}

func signatureHint(c *Closure) string {
	return "signature: " + c.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// coerceType converts v to a declared type annotation.
func coerceType(v value.Value, te *syntax.TypeExpr) (value.Value, error) {
	if te.Optional && v.Kind() == value.KNull {
		return v, nil
	}
	switch te.Name {
	case "", "any":
		return v, nil
	}
	var args []string
	if len(te.Args) > 0 {
		args = make([]string, len(te.Args))
		for i, a := range te.Args {
			args[i] = a.Name
		}
	}
	return value.Coerce(v, te.Name, args)
}
