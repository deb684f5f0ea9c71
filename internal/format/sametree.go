package format

import (
	"math"
	"reflect"

	"github.com/shoalgo/shoal/internal/syntax"
)

// SameTree reports whether a and b are the same tree but for spans (and
// comments, which are trivia beside the tree). It walks both trees at once
// with an explicit stack, comparing each pair of nodes' own fields (sameNode)
// and then their children in order: typed code, no field-by-field
// reflection, no maps.
func SameTree(a, b *syntax.Program) bool {
	if a == nil || b == nil {
		return a == b
	}
	type pair struct{ a, b syntax.Node }
	stack := make([]pair, 1, 64)
	stack[0] = pair{a, b}
	var ka, kb []syntax.Node
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !sameNode(p.a, p.b) {
			return false
		}
		if isLeaf(p.a) {
			continue // sameNode compared all there is
		}
		var oka, okb bool
		ka, oka = syntax.AppendChildren(ka[:0], p.a)
		kb, okb = syntax.AppendChildren(kb[:0], p.b)
		if !oka || !okb || len(ka) != len(kb) {
			return false
		}
		for i := len(ka) - 1; i >= 0; i-- {
			stack = append(stack, pair{ka[i], kb[i]})
		}
	}
	return true
}

// sameNode reports whether a and b are nodes of one kind whose own fields
// agree: every field but spans and children, and for each optional child
// or list of children whether it is there and how long it is (the walk
// compares the children themselves). A node kind it does not know is
// never the same.
func sameNode(a, b syntax.Node) bool {
	switch x := a.(type) {
	case *syntax.Program:
		y, ok := b.(*syntax.Program)
		return ok && len(x.Stmts) == len(y.Stmts)
	case *syntax.LetStmt:
		y, ok := b.(*syntax.LetStmt)
		return ok && x.Name == y.Name && x.Mutable == y.Mutable && x.Exported == y.Exported &&
			(x.Type == nil) == (y.Type == nil) && present(x.Init) == present(y.Init)
	case *syntax.FnStmt:
		y, ok := b.(*syntax.FnStmt)
		return ok && (x.Decl == nil) == (y.Decl == nil)
	case *syntax.FnDecl:
		y, ok := b.(*syntax.FnDecl)
		return ok && x.Name == y.Name && x.Doc == y.Doc && x.Exported == y.Exported &&
			len(x.Params) == len(y.Params) && (x.Rest == nil) == (y.Rest == nil) &&
			(x.Return == nil) == (y.Return == nil) && (x.Body == nil) == (y.Body == nil)
	case *syntax.Param:
		y, ok := b.(*syntax.Param)
		return ok && x.Name == y.Name && (x.Type == nil) == (y.Type == nil) && present(x.Default) == present(y.Default)
	case *syntax.TypeExpr:
		y, ok := b.(*syntax.TypeExpr)
		return ok && x.Name == y.Name && x.Optional == y.Optional && len(x.Args) == len(y.Args)
	case *syntax.AliasStmt:
		y, ok := b.(*syntax.AliasStmt)
		return ok && x.Name == y.Name && (x.Target == nil) == (y.Target == nil)
	case *syntax.UseStmt:
		y, ok := b.(*syntax.UseStmt)
		return ok && x.Path == y.Path && x.As == y.As
	case *syntax.AssignStmt:
		y, ok := b.(*syntax.AssignStmt)
		return ok && x.Op == y.Op && present(x.Target) == present(y.Target) && present(x.Value) == present(y.Value)
	case *syntax.ReturnStmt:
		y, ok := b.(*syntax.ReturnStmt)
		return ok && present(x.Value) == present(y.Value)
	case *syntax.BreakStmt:
		_, ok := b.(*syntax.BreakStmt)
		return ok
	case *syntax.ContinueStmt:
		_, ok := b.(*syntax.ContinueStmt)
		return ok
	case *syntax.ForStmt:
		y, ok := b.(*syntax.ForStmt)
		return ok && x.Var == y.Var && present(x.Iter) == present(y.Iter) && (x.Body == nil) == (y.Body == nil)
	case *syntax.WhileStmt:
		y, ok := b.(*syntax.WhileStmt)
		return ok && present(x.Cond) == present(y.Cond) && (x.Body == nil) == (y.Body == nil)
	case *syntax.ExprStmt:
		y, ok := b.(*syntax.ExprStmt)
		return ok && present(x.X) == present(y.X)
	}
	return sameExprNode(a, b)
}

// sameExprNode is sameNode for literals, names, access, calls, data and
// control expressions.
func sameExprNode(a, b syntax.Node) bool {
	switch x := a.(type) {
	case *syntax.NullLit:
		_, ok := b.(*syntax.NullLit)
		return ok
	case *syntax.BoolLit:
		y, ok := b.(*syntax.BoolLit)
		return ok && x.Value == y.Value
	case *syntax.IntLit:
		y, ok := b.(*syntax.IntLit)
		return ok && x.Value == y.Value
	case *syntax.FloatLit:
		y, ok := b.(*syntax.FloatLit)
		return ok && (x.Value == y.Value || math.IsNaN(x.Value) && math.IsNaN(y.Value))
	case *syntax.StrLit:
		y, ok := b.(*syntax.StrLit)
		return ok && x.Value == y.Value && x.Raw == y.Raw
	case *syntax.StrInterp:
		y, ok := b.(*syntax.StrInterp)
		if !ok || len(x.Parts) != len(y.Parts) {
			return false
		}
		for i, p := range x.Parts {
			if q := y.Parts[i]; p.Lit != q.Lit || present(p.X) != present(q.X) {
				return false
			}
		}
		return true
	case *syntax.SizeLit:
		y, ok := b.(*syntax.SizeLit)
		return ok && x.Bytes == y.Bytes
	case *syntax.DurationLit:
		y, ok := b.(*syntax.DurationLit)
		return ok && x.Nanos == y.Nanos
	case *syntax.TimeLit:
		y, ok := b.(*syntax.TimeLit)
		return ok && x.Nanos == y.Nanos && x.HasSeconds == y.HasSeconds
	case *syntax.DateTimeLit:
		y, ok := b.(*syntax.DateTimeLit)
		return ok && x.Text == y.Text
	case *syntax.PathLit:
		y, ok := b.(*syntax.PathLit)
		return ok && x.Path == y.Path
	case *syntax.RegexLit:
		y, ok := b.(*syntax.RegexLit)
		return ok && x.Pattern == y.Pattern
	case *syntax.Var:
		y, ok := b.(*syntax.Var)
		return ok && x.Name == y.Name
	case *syntax.Field:
		y, ok := b.(*syntax.Field)
		return ok && x.Name == y.Name && x.Optional == y.Optional && present(x.X) == present(y.X)
	case *syntax.Index:
		y, ok := b.(*syntax.Index)
		return ok && present(x.X) == present(y.X) && present(x.Index) == present(y.Index)
	case *syntax.Arg:
		y, ok := b.(*syntax.Arg)
		return ok && x.Name == y.Name && present(x.Value) == present(y.Value)
	case *syntax.MethodCall:
		y, ok := b.(*syntax.MethodCall)
		return ok && x.Name == y.Name && x.Optional == y.Optional && len(x.Args) == len(y.Args) &&
			present(x.X) == present(y.X) && (x.Trailing == nil) == (y.Trailing == nil)
	case *syntax.Call:
		y, ok := b.(*syntax.Call)
		return ok && len(x.Args) == len(y.Args) && present(x.Fn) == present(y.Fn) && (x.Trailing == nil) == (y.Trailing == nil)
	case *syntax.List:
		y, ok := b.(*syntax.List)
		return ok && len(x.Elems) == len(y.Elems)
	case *syntax.RecordField:
		y, ok := b.(*syntax.RecordField)
		return ok && x.Key == y.Key && present(x.Value) == present(y.Value)
	case *syntax.Record:
		y, ok := b.(*syntax.Record)
		return ok && len(x.Fields) == len(y.Fields)
	case *syntax.Block:
		y, ok := b.(*syntax.Block)
		return ok && len(x.Stmts) == len(y.Stmts)
	case *syntax.Lambda:
		y, ok := b.(*syntax.Lambda)
		return ok && x.Implicit == y.Implicit && len(x.Params) == len(y.Params) && present(x.Body) == present(y.Body)
	case *syntax.If:
		y, ok := b.(*syntax.If)
		return ok && present(x.Cond) == present(y.Cond) && (x.Then == nil) == (y.Then == nil) && present(x.Else) == present(y.Else)
	case *syntax.MatchArm:
		y, ok := b.(*syntax.MatchArm)
		return ok && len(x.Patterns) == len(y.Patterns) && present(x.Guard) == present(y.Guard) && present(x.Body) == present(y.Body)
	case *syntax.Match:
		y, ok := b.(*syntax.Match)
		return ok && len(x.Arms) == len(y.Arms) && present(x.Subject) == present(y.Subject)
	case *syntax.Try:
		y, ok := b.(*syntax.Try)
		return ok && x.Binder == y.Binder && (x.Body == nil) == (y.Body == nil) && (x.Handler == nil) == (y.Handler == nil)
	case *syntax.Catch:
		y, ok := b.(*syntax.Catch)
		return ok && x.Binder == y.Binder && present(x.X) == present(y.X) && present(x.Handler) == present(y.Handler)
	case *syntax.WithEntry:
		y, ok := b.(*syntax.WithEntry)
		return ok && x.Key == y.Key && present(x.Value) == present(y.Value)
	case *syntax.With:
		y, ok := b.(*syntax.With)
		return ok && len(x.Entries) == len(y.Entries) && (x.Body == nil) == (y.Body == nil)
	case *syntax.Spawn:
		y, ok := b.(*syntax.Spawn)
		return ok && (x.Body == nil) == (y.Body == nil)
	case *syntax.LangBlock:
		y, ok := b.(*syntax.LangBlock)
		return ok && x.Tool == y.Tool && x.Source == y.Source
	case *syntax.Binary:
		y, ok := b.(*syntax.Binary)
		return ok && x.Op == y.Op && present(x.L) == present(y.L) && present(x.R) == present(y.R)
	case *syntax.Unary:
		y, ok := b.(*syntax.Unary)
		return ok && x.Op == y.Op && present(x.X) == present(y.X)
	case *syntax.Range:
		y, ok := b.(*syntax.Range)
		return ok && x.Inclusive == y.Inclusive && present(x.Lo) == present(y.Lo) && present(x.Hi) == present(y.Hi)
	}
	return sameCmdOrPattern(a, b)
}

// sameCmdOrPattern is sameNode for commands and patterns.
func sameCmdOrPattern(a, b syntax.Node) bool {
	switch x := a.(type) {
	case *syntax.Cmd:
		y, ok := b.(*syntax.Cmd)
		return ok && (x.Call == nil) == (y.Call == nil)
	case *syntax.CmdCall:
		y, ok := b.(*syntax.CmdCall)
		return ok && x.Forced == y.Forced && x.Background == y.Background &&
			len(x.Env) == len(y.Env) && len(x.Args) == len(y.Args) && len(x.Redirects) == len(y.Redirects) &&
			(x.Head == nil) == (y.Head == nil) && (x.Trailing == nil) == (y.Trailing == nil)
	case *syntax.CmdArg:
		y, ok := b.(*syntax.CmdArg)
		return ok && x.Kind == y.Kind && x.Text == y.Text && x.Name == y.Name &&
			(x.Value == nil) == (y.Value == nil) && present(x.X) == present(y.X)
	case *syntax.Redirect:
		y, ok := b.(*syntax.Redirect)
		return ok && x.Kind == y.Kind && (x.Target == nil) == (y.Target == nil)
	case *syntax.EnvPrefix:
		y, ok := b.(*syntax.EnvPrefix)
		return ok && x.Name == y.Name && (x.Value == nil) == (y.Value == nil)
	case *syntax.WildcardPat:
		_, ok := b.(*syntax.WildcardPat)
		return ok
	case *syntax.BindPat:
		y, ok := b.(*syntax.BindPat)
		return ok && x.Name == y.Name
	case *syntax.LitPat:
		y, ok := b.(*syntax.LitPat)
		return ok && present(x.Value) == present(y.Value)
	case *syntax.RangePat:
		y, ok := b.(*syntax.RangePat)
		return ok && x.Lo == y.Lo && x.Hi == y.Hi && x.Inclusive == y.Inclusive
	case *syntax.TypePat:
		y, ok := b.(*syntax.TypePat)
		return ok && x.Type == y.Type && x.Binder == y.Binder
	case *syntax.RecordPatField:
		y, ok := b.(*syntax.RecordPatField)
		return ok && x.Key == y.Key && present(x.Pat) == present(y.Pat)
	case *syntax.RecordPat:
		y, ok := b.(*syntax.RecordPat)
		return ok && len(x.Fields) == len(y.Fields)
	case *syntax.ListPat:
		y, ok := b.(*syntax.ListPat)
		return ok && len(x.Elems) == len(y.Elems) && x.HasRest == y.HasRest && x.Rest == y.Rest
	}
	return false
}

// present reports whether an optional child is there: neither a nil
// interface nor a nil pointer in one.
func present(n syntax.Node) bool {
	if n == nil {
		return false
	}
	v := reflect.ValueOf(n) // a pointer: no allocation, no field walk
	return v.Kind() != reflect.Pointer || !v.IsNil()
}
