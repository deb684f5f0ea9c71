package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// mode says how a command in this position runs.
type mode uint8

const (
	mStream mode = 1 << iota // externals stream stdout/stderr to the thread's writers
	mRaise                   // a failed command raises cmd_failed
	mEmit                    // builtin/function command results are printed

	modeValue = mode(0)                  // captured into an outcome
	modeStmt  = mStream | mRaise | mEmit // non-final statement
	modeFinal = mStream | mRaise         // final statement: its value is returned
)

// execStmt runs one statement and returns its value (null for
// declarations).
func (t *thread) execStmt(st syntax.Stmt, sc *scope, m mode) (value.Value, error) {
	switch s := st.(type) {
	case *syntax.ExprStmt:
		return t.evalPos(s.X, sc, m)
	case *syntax.LetStmt:
		v, err := t.eval(s.Init, sc)
		if err != nil {
			return nil, err
		}
		if s.Type != nil {
			if v, err = coerceType(v, s.Type); err != nil {
				return nil, withSpan(err, s.Init.Pos())
			}
		}
		if s.Name != "_" {
			if sc == t.in.root {
				if err := t.bindRoot(s.Name, v); err != nil {
					return nil, withSpan(err, s.Init.Pos())
				}
			}
			sc.declare(s.Name, v, s.Mutable)
		}
		return value.Nil, nil
	case *syntax.FnStmt:
		sc.declare(s.Decl.Name, newFnClosure(s.Decl, sc), false)
		return value.Nil, nil
	case *syntax.AliasStmt:
		sc.declare(s.Name, &CmdRef{Name: s.Name, Call: s.Target}, false)
		return value.Nil, nil
	case *syntax.AssignStmt:
		if err := t.assign(s, sc); err != nil {
			return nil, withSpan(err, s.Span)
		}
		return value.Nil, nil
	case *syntax.ReturnStmt:
		var v value.Value = value.Nil
		if s.Value != nil {
			var err error
			if v, err = t.eval(s.Value, sc); err != nil {
				return nil, err
			}
		}
		return nil, &flow{kind: flowReturn, val: v}
	case *syntax.BreakStmt:
		return nil, breakSignal
	case *syntax.ContinueStmt:
		return nil, continueSignal
	case *syntax.ForStmt:
		return value.Nil, t.execFor(s, sc)
	case *syntax.WhileStmt:
		return value.Nil, t.execWhile(s, sc)
	case *syntax.UseStmt:
		return value.Nil, t.execUse(s, sc)
	}
	return nil, errorf(codeType, "unsupported statement %T", st).At(st.Pos())
}

// declares reports whether stmts bind names directly in their block, which
// is when the block needs a scope of its own.
func declares(stmts []syntax.Stmt) bool {
	for _, st := range stmts {
		switch st.(type) {
		case *syntax.LetStmt, *syntax.FnStmt, *syntax.AliasStmt, *syntax.UseStmt:
			return true
		}
	}
	return false
}

// evalBlock evaluates a block in a child scope (created only when the
// block declares names). Non-final statements run in statement position;
// the final one in m.
func (t *thread) evalBlock(b *syntax.Block, sc *scope, m mode) (value.Value, error) {
	if declares(b.Stmts) {
		sc = newScope(sc)
	}
	return t.evalStmts(b.Stmts, sc, m)
}

// evalStmts runs stmts directly in sc.
func (t *thread) evalStmts(stmts []syntax.Stmt, sc *scope, m mode) (value.Value, error) {
	if t.depth++; t.depth > maxEvalDepth {
		t.depth--
		return nil, tooDeep()
	}
	v, err := t.evalStmts1(stmts, sc, m)
	t.depth--
	return v, err
}

func (t *thread) evalStmts1(stmts []syntax.Stmt, sc *scope, m mode) (value.Value, error) {
	var last value.Value = value.Nil
	n := len(stmts)
	for i, st := range stmts {
		sm := modeStmt
		if i == n-1 {
			sm = m
		}
		v, err := t.execStmt(st, sc, sm)
		if err != nil {
			return nil, err
		}
		last = v
	}
	if last == nil {
		last = value.Nil
	}
	return last, nil
}

// loopBody runs one iteration of a loop body in sc and reports whether the
// loop should stop.
func (t *thread) loopBody(b *syntax.Block, sc *scope) (stop bool, err error) {
	if err := t.checkpoint(); err != nil {
		return true, err
	}
	_, err = t.evalStmts(b.Stmts, sc, modeStmt)
	if err != nil {
		switch err {
		case breakSignal:
			return true, nil
		case continueSignal:
			return false, nil
		}
		return true, err
	}
	return false, nil
}

func (t *thread) execWhile(s *syntax.WhileStmt, sc *scope) error {
	fresh := declares(s.Body.Stmts)
	var reuse *scope
	if fresh && !t.in.mayCapture(s.Body) {
		reuse = t.getScope(sc)
		defer t.putScope(reuse)
	}
	for {
		c, err := t.eval(s.Cond, sc)
		if err != nil {
			return err
		}
		ok, err := value.Truthy(c)
		if err != nil {
			return withSpan(err, s.Cond.Pos())
		}
		if !ok {
			return nil
		}
		body := sc
		switch {
		case reuse != nil:
			reuse.reset()
			body = reuse
		case fresh:
			body = newScope(sc)
		}
		stop, err := t.loopBody(s.Body, body)
		if err != nil || stop {
			return err
		}
	}
}

func (t *thread) execFor(s *syntax.ForStmt, sc *scope) error {
	iv, err := t.eval(s.Iter, sc)
	if err != nil {
		return err
	}
	var reuse *scope
	if !t.in.mayCapture(s.Body) {
		reuse = t.getScope(sc)
		defer t.putScope(reuse)
	}
	step := func(item value.Value) (bool, error) {
		body := reuse
		if body == nil {
			body = newScope(sc)
		} else {
			body.reset()
		}
		if s.Var != "_" {
			body.declare(s.Var, item, false)
		}
		return t.loopBody(s.Body, body)
	}
	switch x := iv.(type) {
	case value.Range:
		hi := x.Hi
		if !x.Inclusive {
			if hi == x.Lo || hi < x.Lo {
				return nil
			}
			hi--
		}
		for i := x.Lo; i <= hi; i++ {
			if stop, err := step(value.IntValue(i)); err != nil || stop {
				return err
			}
			if i == hi { // avoid overflow at MaxInt64
				break
			}
		}
		return nil
	case *value.List:
		for _, it := range x.Items {
			if stop, err := step(it); err != nil || stop {
				return err
			}
		}
		return nil
	case *value.Table:
		for i := 0; i < x.N; i++ {
			if stop, err := step(x.Row(i)); err != nil || stop {
				return err
			}
		}
		return nil
	case *value.Stream:
		return t.execForStream(x, s.Iter, step)
	case *value.Glob:
		items, err := t.expandGlob(x)
		if err != nil {
			return withSpan(err, s.Iter.Pos())
		}
		for _, it := range items.Items {
			if stop, err := step(it); err != nil || stop {
				return err
			}
		}
		return nil
	case *value.Outcome:
		out, err := t.outcomeOut(x)
		if err != nil {
			return withSpan(err, s.Iter.Pos())
		}
		if _, nested := out.(*value.Outcome); !nested {
			return t.execForValues(s, out, step)
		}
	}
	return t.execForValues(s, iv, step)
}

func (t *thread) execForValues(s *syntax.ForStmt, v value.Value, step func(value.Value) (bool, error)) error {
	items, ok := value.Iterate(v)
	if !ok {
		return errorf(codeType, "cannot iterate over %s", value.TypeName(v)).At(s.Iter.Pos())
	}
	for _, it := range items {
		if stop, err := step(it); err != nil || stop {
			return err
		}
	}
	return nil
}
