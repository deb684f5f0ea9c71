package eval

import (
	"encoding/json"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// evalFeed handles `value.feed(command)` and `command.feed(value)`. ok is
// false when neither side is a command, leaving `.feed` to ordinary method
// dispatch.
func (t *thread) evalFeed(n *syntax.MethodCall, sc *scope) (value.Value, bool, error) {
	if len(n.Args) != 1 || n.Args[0].Name != "" || n.Trailing != nil {
		return nil, false, nil
	}
	arg := n.Args[0].Value
	if t.isCommandExpr(arg, sc) {
		recv, err := t.eval(n.X, sc)
		if err != nil {
			return nil, true, err
		}
		if n.Optional && recv.Kind() == value.KNull {
			return value.Nil, true, nil
		}
		data, err := t.feedBytes(recv)
		if err != nil {
			return nil, true, withSpan(err, n.X.Pos())
		}
		v, err := t.runFed(arg, data, sc)
		return v, true, err
	}
	if t.isCommandExpr(n.X, sc) {
		v, err := t.eval(arg, sc)
		if err != nil {
			return nil, true, err
		}
		data, err := t.feedBytes(v)
		if err != nil {
			return nil, true, withSpan(err, arg.Pos())
		}
		r, err := t.runFed(n.X, data, sc)
		return r, true, err
	}
	return nil, false, nil
}

// isCommandExpr reports whether x denotes a command to run rather than a
// value: a command call, an interpreter block, or an unbound name.
func (t *thread) isCommandExpr(x syntax.Expr, sc *scope) bool {
	switch e := x.(type) {
	case *syntax.Cmd, *syntax.LangBlock:
		return true
	case *syntax.Var:
		if sc.lookup(e.Name) != nil {
			return false
		}
		if _, ok := t.reg().lookupFunc(e.Name); ok {
			return false
		}
		if _, ok := t.namespace(e.Name); ok {
			return false
		}
		return true
	}
	return false
}

// runFed runs the command expression x with data on stdin, captured.
func (t *thread) runFed(x syntax.Expr, data []byte, sc *scope) (value.Value, error) {
	var v value.Value
	var err error
	switch e := x.(type) {
	case *syntax.Cmd:
		v, err = t.runCmd(e.Call, sc, modeValue, &cmdOpts{stdin: data, hasStdin: true})
	case *syntax.LangBlock:
		v, err = t.runLangBlock(e, data, modeValue)
	case *syntax.Var:
		call := &syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: e.Name, Span: e.Span}, Span: e.Span}
		v, err = t.runCmd(call, sc, modeValue, &cmdOpts{stdin: data, hasStdin: true})
	}
	if err != nil {
		return nil, withSpan(err, x.Pos())
	}
	return v, nil
}

// feedBytes serialises a finite value for a command's stdin.
func (t *thread) feedBytes(v value.Value) ([]byte, error) {
	switch x := v.(type) {
	case value.Str:
		return []byte(x), nil
	case value.Bytes:
		return []byte(x), nil
	case value.Null:
		return []byte{}, nil
	case value.Int, value.Float, value.Bool, value.Size, value.Duration, value.DateTime, value.Time:
		return []byte(value.Inline(v)), nil
	case *value.List:
		if allStrings(x.Items) {
			var b strings.Builder
			for _, it := range x.Items {
				b.WriteString(string(it.(value.Str)))
				b.WriteByte('\n')
			}
			return []byte(b.String()), nil
		}
		return t.compactJSON(v)
	case *value.Record, *value.Table:
		return t.compactJSON(v)
	case *value.Outcome:
		out, err := t.outcomeOut(x)
		if err != nil {
			return nil, err
		}
		switch out.(type) {
		case value.Str, value.Bytes:
			if !x.Builtin {
				return x.Stdout, nil
			}
		}
		return t.feedBytes(out)
	case value.Path:
		return nil, errorf(codeType, "cannot feed a path: a path is a name, not its content").
			WithHint("feed its content instead: path.read.feed(...)")
	}
	if v.Kind() == value.KStream {
		return nil, errorf(codeType, "cannot feed a stream yet").
			WithHint("bound and collect it first: .take(n).collect().feed(...)")
	}
	return nil, errorf(codeFeed, "cannot feed %s to a command", value.TypeName(v))
}

func allStrings(items []value.Value) bool {
	for _, it := range items {
		if _, ok := it.(value.Str); !ok {
			return false
		}
	}
	return true
}

// compactJSON encodes v as compact JSON, preferring the value library's
// own `.json()` so key order and special values match it.
func (t *thread) compactJSON(v value.Value) ([]byte, error) {
	if m, ok := value.LookupMethod(v.Kind(), "json"); ok {
		s, err := m(t, v, value.Args{})
		if err == nil {
			if str, ok := s.(value.Str); ok {
				return []byte(str), nil
			}
		}
	}
	x, err := value.ToJSON(v)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(x)
	if err != nil {
		return nil, errorf(codeFeed, "cannot encode %s as JSON: %v", value.TypeName(v), err)
	}
	return b, nil
}
