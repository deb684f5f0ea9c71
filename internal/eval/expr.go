package eval

import (
	"regexp"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// eval evaluates x in value position.
func (t *thread) eval(x syntax.Expr, sc *scope) (value.Value, error) {
	// Literals and variables first: they are the hot path and never fail.
	switch n := x.(type) {
	case *syntax.Var:
		if b := sc.lookup(n.Name); b != nil {
			return b.val, nil
		}
	case *syntax.IntLit:
		return value.IntValue(n.Value), nil
	case *syntax.StrLit:
		return value.Str(n.Value), nil
	case *syntax.BoolLit:
		return value.Bool(n.Value), nil
	case *syntax.FloatLit:
		return value.Float(n.Value), nil
	case *syntax.NullLit:
		return value.Nil, nil
	case *syntax.SizeLit:
		return value.Size(n.Bytes), nil
	case *syntax.DurationLit:
		return value.Duration(n.Nanos), nil
	case *syntax.TimeLit:
		return value.Time(n.Nanos), nil
	}
	if t.depth++; t.depth > maxEvalDepth {
		t.depth--
		return nil, withSpan(tooDeep(), x.Pos())
	}
	v, err := t.eval1(x, sc)
	t.depth--
	if err != nil {
		return nil, withSpan(err, x.Pos())
	}
	return v, nil
}

// tooDeep is the error of an evaluation past maxEvalDepth.
func tooDeep() error {
	return errorf(codeRecursion, "recursion limit: calls and nested expressions go more than %d deep", maxEvalDepth)
}

func (t *thread) eval1(x syntax.Expr, sc *scope) (value.Value, error) {
	switch n := x.(type) {
	case *syntax.Var:
		return t.unboundVar(n, sc)
	case *syntax.DateTimeLit:
		return value.ParseDateTime(n.Text)
	case *syntax.PathLit:
		return value.Path(t.expandHome(n.Path)), nil
	case *syntax.RegexLit:
		return t.regexLit(n)
	case *syntax.StrInterp:
		return t.keep(t.evalInterp(n, sc))
	case *syntax.Field:
		return t.evalField(n, sc)
	case *syntax.Index:
		return t.evalIndex(n, sc)
	case *syntax.MethodCall:
		return t.keep(t.evalMethodCall(n, sc))
	case *syntax.Call:
		return t.evalCall(n, sc)
	case *syntax.List:
		items := make([]value.Value, len(n.Elems))
		for i, e := range n.Elems {
			v, err := t.eval(e, sc)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return t.keep(value.NewList(items), nil)
	case *syntax.Record:
		keys := make([]string, len(n.Fields))
		vals := make([]value.Value, len(n.Fields))
		for i, f := range n.Fields {
			v, err := t.eval(f.Value, sc)
			if err != nil {
				return nil, err
			}
			keys[i], vals[i] = f.Key, v
		}
		return t.keep(value.NewRecord(keys, vals), nil)
	case *syntax.Lambda:
		return newLambdaClosure(n, sc), nil
	case *syntax.Binary:
		return t.keep(t.evalBinary(n, sc, modeValue))
	case *syntax.Unary:
		return t.evalUnary(n, sc)
	case *syntax.Range:
		return t.evalRange(n, sc)
	case *syntax.Catch:
		return t.evalCatch(n, sc)
	case *syntax.Spawn:
		return t.evalSpawn(n, sc)
	case *syntax.Block, *syntax.If, *syntax.Match, *syntax.Try, *syntax.With,
		*syntax.Cmd, *syntax.LangBlock:
		return t.evalPos(x, sc, modeValue)
	case *syntax.IntLit, *syntax.StrLit, *syntax.BoolLit, *syntax.FloatLit,
		*syntax.NullLit, *syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit:
		return t.eval(x, sc)
	}
	return nil, errorf(codeType, "unsupported expression %T", x)
}

// evalPos evaluates the position-sensitive forms: commands run according
// to m, and control forms pass m on to the branch that yields their value.
func (t *thread) evalPos(x syntax.Expr, sc *scope, m mode) (value.Value, error) {
	switch n := x.(type) {
	case *syntax.Cmd, *syntax.LangBlock, *syntax.Block, *syntax.If, *syntax.Match, *syntax.Try, *syntax.With:
	case *syntax.Binary:
		if m == modeValue || (n.Op != syntax.OpAnd && n.Op != syntax.OpOr) {
			return t.eval(x, sc) // eval counts its own depth
		}
	default:
		return t.eval(x, sc)
	}
	if t.depth++; t.depth > maxEvalDepth {
		t.depth--
		return nil, withSpan(tooDeep(), x.Pos())
	}
	v, err := t.evalPos1(x, sc, m)
	t.depth--
	return v, err
}

func (t *thread) evalPos1(x syntax.Expr, sc *scope, m mode) (value.Value, error) {
	var v value.Value
	var err error
	switch n := x.(type) {
	case *syntax.Cmd:
		v, err = t.keep(t.runCmd(n.Call, sc, m, nil))
	case *syntax.LangBlock:
		v, err = t.keep(t.runLangBlock(n, nil, m))
	case *syntax.Block:
		return t.evalBlock(n, sc, m)
	case *syntax.If:
		return t.evalIf(n, sc, m)
	case *syntax.Match:
		v, err = t.evalMatch(n, sc, m)
	case *syntax.Try:
		return t.evalTry(n, sc, m)
	case *syntax.With:
		v, err = t.evalWith(n, sc, m)
	case *syntax.Binary:
		if m != modeValue && (n.Op == syntax.OpAnd || n.Op == syntax.OpOr) {
			v, err = t.evalBinary(n, sc, m&^mRaise)
			break
		}
		return t.eval(x, sc)
	default:
		return t.eval(x, sc)
	}
	if err != nil {
		return nil, withSpan(err, x.Pos())
	}
	return v, nil
}

func (t *thread) evalInterp(n *syntax.StrInterp, sc *scope) (value.Value, error) {
	var b strings.Builder
	for _, p := range n.Parts {
		if p.X == nil {
			b.WriteString(p.Lit)
			continue
		}
		v, err := t.eval(p.X, sc)
		if err != nil {
			return nil, err
		}
		if s, ok := v.(*value.Secret); ok {
			return nil, errorf(codeType, "secret %s cannot be interpolated", s.Name)
		}
		text := value.Interp(v)
		if err := value.CheckStrLen(b.Len() + len(text) + len(p.Lit)); err != nil {
			return nil, withSpan(err, n.Span)
		}
		b.WriteString(text)
	}
	return value.Str(b.String()), nil
}

type regexKey struct{ n *syntax.RegexLit }

func (t *thread) regexLit(n *syntax.RegexLit) (value.Value, error) {
	if v, ok := t.in.cache.Load(regexKey{n}); ok {
		return v.(*value.Regex), nil
	}
	r, err := compileRegex(n.Pattern)
	if err != nil {
		return nil, err
	}
	t.in.cache.Store(regexKey{n}, r)
	return r, nil
}

func compileRegex(src string) (*value.Regex, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, errorf(codeArg, "invalid regex %q: %v", src, err)
	}
	return &value.Regex{Source: src, Re: re}, nil
}

func (t *thread) evalUnary(n *syntax.Unary, sc *scope) (value.Value, error) {
	v, err := t.eval(n.X, sc)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case syntax.OpNot:
		b, err := value.Truthy(v)
		if err != nil {
			return nil, err
		}
		return value.Bool(!b), nil
	case syntax.OpNeg:
		return value.Negate(v)
	}
	return nil, errorf(codeType, "unknown unary operator %s", n.Op)
}

func (t *thread) evalRange(n *syntax.Range, sc *scope) (value.Value, error) {
	lo, err := t.eval(n.Lo, sc)
	if err != nil {
		return nil, err
	}
	hi, err := t.eval(n.Hi, sc)
	if err != nil {
		return nil, err
	}
	l, ok1 := lo.(value.Int)
	h, ok2 := hi.(value.Int)
	if !ok1 || !ok2 {
		return nil, errorf(codeType, "range bounds must be int, got %s..%s", value.TypeName(lo), value.TypeName(hi))
	}
	return value.Range{Lo: int64(l), Hi: int64(h), Inclusive: n.Inclusive}, nil
}

// evalBinary evaluates an operator. m is the command mode used for
// command operands of && and || (statement chains stream their commands).
func (t *thread) evalBinary(n *syntax.Binary, sc *scope, m mode) (value.Value, error) {
	switch n.Op {
	case syntax.OpAnd, syntax.OpOr:
		l, err := t.evalOperand(n.L, sc, m)
		if err != nil {
			return nil, err
		}
		lb, err := value.Truthy(l)
		if err != nil {
			return nil, withSpan(err, n.L.Pos())
		}
		if lb == (n.Op == syntax.OpOr) {
			return l, nil
		}
		// The right operand decides the result whatever it is, so it is
		// returned as it is, untested: `(^test -f x) && "present"` is the
		// string. Only an operand that must be tested (the left one, and so
		// every operand but the last of a chain) has to be a condition.
		return t.evalOperand(n.R, sc, m)
	case syntax.OpCoalesce:
		l, err := t.eval(n.L, sc)
		if err != nil {
			return nil, err
		}
		if l.Kind() != value.KNull {
			return l, nil
		}
		return t.eval(n.R, sc)
	}
	l, err := t.eval(n.L, sc)
	if err != nil {
		return nil, err
	}
	r, err := t.eval(n.R, sc)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case syntax.OpEq:
		return value.Bool(value.Equal(l, r)), nil
	case syntax.OpNe:
		return value.Bool(!value.Equal(l, r)), nil
	}
	if li, ok := l.(value.Int); ok {
		if ri, ok := r.(value.Int); ok {
			if v, ok := intFast(n.Op, int64(li), int64(ri)); ok {
				return v, nil
			}
		}
	}
	return t.binaryReserved(n.Op, l, r)
}

// intFast handles the common int-int operators without overflow risk.
func intFast(op syntax.BinOp, a, b int64) (value.Value, bool) {
	switch op {
	case syntax.OpLt:
		return value.Bool(a < b), true
	case syntax.OpLe:
		return value.Bool(a <= b), true
	case syntax.OpGt:
		return value.Bool(a > b), true
	case syntax.OpGe:
		return value.Bool(a >= b), true
	case syntax.OpAdd:
		c := a + b
		if (c > a) == (b > 0) {
			return value.IntValue(c), true
		}
	case syntax.OpSub:
		c := a - b
		if (c < a) == (b > 0) {
			return value.IntValue(c), true
		}
	case syntax.OpMul:
		const lim = 1 << 31
		if a > -lim && a < lim && b > -lim && b < lim {
			return value.IntValue(a * b), true
		}
	}
	return nil, false
}

// evalOperand evaluates an && / || operand; command operands run in m.
func (t *thread) evalOperand(x syntax.Expr, sc *scope, m mode) (value.Value, error) {
	if m == modeValue {
		return t.eval(x, sc)
	}
	switch x.(type) {
	case *syntax.Cmd, *syntax.LangBlock, *syntax.Binary:
		return t.evalPos(x, sc, m)
	}
	return t.eval(x, sc)
}
