package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Closure is a user function or lambda with the scope it captured.
type Closure struct {
	Name   string // "" for lambdas
	Params []*syntax.Param
	Rest   *syntax.Param
	Body   syntax.Expr // *syntax.Block for declared functions
	Doc    string
	env    *scope

	analysed bool
	rowSafe  bool   // the body reads its argument only through fields
	project  string // the body is exactly `param.project`
	rowBusy  bool   // row is in use by a running CallRow
	row      rowView
	capState uint8 // 0 unknown, 1 scope recyclable after a call, 2 not
}

// recyclable reports whether a call's scope can be reused once the call
// returns: nothing in the body or the defaults can capture it.
func (c *Closure) recyclable(in *Interp) bool {
	if c.capState == 0 {
		c.capState = 1
		if in.mayCapture(c.Body) {
			c.capState = 2
		}
		for _, p := range c.Params {
			if p.Default != nil && in.mayCapture(p.Default) {
				c.capState = 2
			}
		}
	}
	return c.capState == 1
}

// Kind implements value.Value.
func (*Closure) Kind() value.Kind { return value.KClosure }

// String renders the closure's signature.
func (c *Closure) String() string {
	s := "fn"
	if c.Name != "" {
		s += " " + c.Name
	}
	s += "("
	for i, p := range c.Params {
		if i > 0 {
			s += ", "
		}
		s += p.Name
	}
	if c.Rest != nil {
		if len(c.Params) > 0 {
			s += ", "
		}
		s += "..." + c.Rest.Name
	}
	return s + ")"
}

func newFnClosure(d *syntax.FnDecl, sc *scope) *Closure {
	return &Closure{Name: d.Name, Params: d.Params, Rest: d.Rest, Body: d.Body, Doc: d.Doc, env: sc}
}

func newLambdaClosure(l *syntax.Lambda, sc *scope) *Closure {
	return &Closure{Params: l.Params, Body: l.Body, env: sc}
}

// CmdRef is an alias: a stored command call that later arguments extend.
type CmdRef struct {
	Name string
	Call *syntax.CmdCall
}

// Kind implements value.Value.
func (*CmdRef) Kind() value.Kind { return value.KCommand }

// rowView stands for one table row while a row-safe closure runs. The
// closure's body only reads fields of it, so it never escapes as a value.
type rowView struct {
	t *value.Table
	i int
}

func (*rowView) Kind() value.Kind { return value.KRecord }

// analyse classifies the closure body for the table fast paths.
func (c *Closure) analyse() {
	if c.analysed {
		return
	}
	c.analysed = true
	if len(c.Params) != 1 || c.Rest != nil || c.Params[0].Default != nil || c.Params[0].Type != nil {
		return
	}
	p := c.Params[0].Name
	if f, ok := c.Body.(*syntax.Field); ok && !f.Optional {
		if v, ok := f.X.(*syntax.Var); ok && v.Name == p {
			c.project = f.Name
		}
	}
	c.rowSafe = fieldOnly(c.Body, p)
}

// CallRow implements value.RowCallable.
func (c *Closure) CallRow(env value.Env, tab *value.Table, i int) (value.Value, bool, error) {
	t, ok := env.(*thread)
	if !ok {
		return nil, false, nil
	}
	c.analyse()
	if !c.rowSafe {
		return nil, false, nil
	}
	var row *rowView
	if c.rowBusy {
		row = &rowView{t: tab, i: i}
	} else {
		c.rowBusy = true
		defer func() { c.rowBusy = false }()
		c.row = rowView{t: tab, i: i}
		row = &c.row
	}
	v, err := t.callClosure(c, []value.Value{row}, nil)
	return v, true, err
}

// ProjectField implements value.FieldProjector.
func (c *Closure) ProjectField() (string, bool) {
	c.analyse()
	return c.project, c.project != ""
}

// fieldOnly reports whether every use of name in x is the receiver of a
// plain field read. It answers false for anything it does not understand.
func fieldOnly(x syntax.Node, name string) bool {
	if x == nil {
		return true
	}
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch e := n.(type) {
		case *syntax.Var:
			ok = ok && e.Name != name
		case *syntax.Field:
			if v, isVar := e.X.(*syntax.Var); isVar && v.Name == name && !e.Optional {
				return false
			}
		case *syntax.IntLit, *syntax.FloatLit, *syntax.StrLit, *syntax.BoolLit, *syntax.NullLit,
			*syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit, *syntax.DateTimeLit, *syntax.PathLit, *syntax.RegexLit,
			*syntax.StrInterp, *syntax.Binary, *syntax.Unary, *syntax.Index, *syntax.List,
			*syntax.Record, *syntax.RecordField, *syntax.Arg, *syntax.Range, *syntax.If,
			*syntax.Block, *syntax.ExprStmt, *syntax.TypeExpr:
		case *syntax.MethodCall:
			ok = ok && e.Trailing == nil
		case *syntax.Call:
			ok = ok && e.Trailing == nil
		case *syntax.LetStmt:
			ok = ok && e.Name != name
		default:
			ok = false
		}
		return ok
	})
	return ok
}

func (c *Closure) InlineString() string { return "<" + c.String() + ">" }

// InlineString implements value.Inliner.
func (a *CmdRef) InlineString() string { return "<alias " + a.Name + ">" }

// InlineString implements value.Inliner.
func (r *rowView) InlineString() string { return "<row>" }
