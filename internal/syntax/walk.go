package syntax

import "reflect"

// The one AST walker. Every pass that visits the tree (plan derivation,
// the evaluator's capture analysis, ...) reaches the children of a node
// through Children, so a node kind or field added to ast.go is added here
// once; TestWalkerCoversEveryNode fails until it is.

// Walk visits the tree rooted at n depth-first, in source order: f is
// called for each node, and when it returns false the node's children are
// skipped. The walk is iterative (an explicit stack), so it needs no Go
// stack however deep the tree. It reports false when it met a node kind it
// does not know (which the walker test rules out for ast.go's kinds); such
// a node is given to f but its children are not visited.
func Walk(n Node, f func(Node) bool) bool {
	if isNilNode(n) {
		return true
	}
	ok := true
	stack := []Node{n}
	var kids []Node
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !f(top) {
			continue
		}
		var known bool
		kids, known = AppendChildren(kids[:0], top)
		ok = ok && known
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return ok
}

// Children returns the direct children of n in source order, and false
// when n is of a kind the walker does not know.
func Children(n Node) ([]Node, bool) { return AppendChildren(nil, n) }

// AppendChildren appends the direct children of n to dst in source order.
// It reports false when n is of a kind the walker does not know.
//
// The nodes are every statement, expression and pattern kind, and the
// structural pieces around them that have a span: *Program, *FnDecl,
// *Param, *TypeExpr, *Arg, *RecordField, *MatchArm, *WithEntry, *CmdCall,
// *CmdArg, *Redirect, *EnvPrefix and *RecordPatField. A StrPart has no span:
// its expression is a direct child of the *StrInterp.
func AppendChildren(dst []Node, n Node) ([]Node, bool) {
	c := childList{dst}
	switch n := n.(type) {
	case *Program:
		for _, s := range n.Stmts {
			c.node(s)
		}

	// Statements
	case *LetStmt:
		c.typ(n.Type)
		c.node(n.Init)
	case *FnStmt:
		if n.Decl != nil {
			c.add(n.Decl)
		}
	case *FnDecl:
		for _, p := range n.Params {
			c.param(p)
		}
		c.param(n.Rest)
		c.typ(n.Return)
		c.block(n.Body)
	case *Param:
		c.typ(n.Type)
		c.node(n.Default)
	case *TypeExpr:
		for _, a := range n.Args {
			c.typ(a)
		}
	case *AliasStmt:
		c.cmdCall(n.Target)
	case *UseStmt, *BreakStmt, *ContinueStmt:
	case *AssignStmt:
		c.node(n.Target)
		c.node(n.Value)
	case *ReturnStmt:
		c.node(n.Value)
	case *ForStmt:
		c.node(n.Iter)
		c.block(n.Body)
	case *WhileStmt:
		c.node(n.Cond)
		c.block(n.Body)
	case *ExprStmt:
		c.node(n.X)

	// Literals and names: leaves
	case *NullLit, *BoolLit, *IntLit, *FloatLit, *StrLit, *SizeLit, *DurationLit,
		*TimeLit, *DateTimeLit, *PathLit, *RegexLit, *Var, *LangBlock:
	case *StrInterp:
		for _, p := range n.Parts {
			c.node(p.X)
		}

	// Access and calls
	case *Field:
		c.node(n.X)
	case *Index:
		c.node(n.X)
		c.node(n.Index)
	case *Arg:
		c.node(n.Value)
	case *MethodCall:
		c.node(n.X)
		for _, a := range n.Args {
			c.arg(a)
		}
		c.block(n.Trailing)
	case *Call:
		c.node(n.Fn)
		for _, a := range n.Args {
			c.arg(a)
		}
		c.block(n.Trailing)

	// Data, functions and control
	case *List:
		for _, x := range n.Elems {
			c.node(x)
		}
	case *RecordField:
		c.node(n.Value)
	case *Record:
		for _, f := range n.Fields {
			if f != nil {
				c.add(f)
			}
		}
	case *Block:
		for _, s := range n.Stmts {
			c.node(s)
		}
	case *Lambda:
		for _, p := range n.Params {
			c.param(p)
		}
		c.node(n.Body)
	case *If:
		c.node(n.Cond)
		c.block(n.Then)
		c.node(n.Else)
	case *MatchArm:
		for _, p := range n.Patterns {
			c.node(p)
		}
		c.node(n.Guard)
		c.node(n.Body)
	case *Match:
		c.node(n.Subject)
		for _, a := range n.Arms {
			if a != nil {
				c.add(a)
			}
		}
	case *Try:
		c.block(n.Body)
		c.block(n.Handler)
	case *Catch:
		c.node(n.X)
		c.node(n.Handler)
	case *WithEntry:
		c.node(n.Value)
	case *With:
		for _, e := range n.Entries {
			if e != nil {
				c.add(e)
			}
		}
		c.block(n.Body)
	case *Spawn:
		c.block(n.Body)
	case *Binary:
		c.node(n.L)
		c.node(n.R)
	case *Unary:
		c.node(n.X)
	case *Range:
		c.node(n.Lo)
		c.node(n.Hi)
	case *Cmd:
		c.cmdCall(n.Call)

	// Commands
	case *CmdCall:
		for _, e := range n.Env {
			if e != nil {
				c.add(e)
			}
		}
		c.cmdArg(n.Head)
		for _, a := range n.Args {
			c.cmdArg(a)
		}
		for _, r := range n.Redirects {
			if r != nil {
				c.add(r)
			}
		}
		c.block(n.Trailing)
	case *CmdArg:
		c.cmdArg(n.Value)
		c.node(n.X)
	case *Redirect:
		c.cmdArg(n.Target)
	case *EnvPrefix:
		c.cmdArg(n.Value)

	// Patterns
	case *WildcardPat, *BindPat, *RangePat, *TypePat:
	case *LitPat:
		c.node(n.Value)
	case *RecordPatField:
		c.node(n.Pat)
	case *RecordPat:
		for _, f := range n.Fields {
			if f != nil {
				c.add(f)
			}
		}
	case *ListPat:
		for _, e := range n.Elems {
			c.node(e)
		}
	default:
		return c.dst, false
	}
	return c.dst, true
}

// childList collects children, dropping absent ones.
type childList struct{ dst []Node }

func (c *childList) add(n Node) { c.dst = append(c.dst, n) }

// node adds an interface-typed child unless it is absent (nil, or a nil
// pointer in the interface).
func (c *childList) node(n Node) {
	if !isNilNode(n) {
		c.dst = append(c.dst, n)
	}
}

func (c *childList) block(b *Block) {
	if b != nil {
		c.dst = append(c.dst, b)
	}
}

func (c *childList) param(p *Param) {
	if p != nil {
		c.dst = append(c.dst, p)
	}
}

func (c *childList) typ(t *TypeExpr) {
	if t != nil {
		c.dst = append(c.dst, t)
	}
}

func (c *childList) arg(a *Arg) {
	if a != nil {
		c.dst = append(c.dst, a)
	}
}

func (c *childList) cmdCall(x *CmdCall) {
	if x != nil {
		c.dst = append(c.dst, x)
	}
}

func (c *childList) cmdArg(a *CmdArg) {
	if a != nil {
		c.dst = append(c.dst, a)
	}
}

// isNilNode reports a nil interface or a nil pointer inside one.
func isNilNode(n Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Spans of the structural nodes (the statement, expression and pattern
// kinds have theirs in ast.go).

// Pos returns the span from the first statement to the last (zero when
// the program is empty).
func (n *Program) Pos() Span {
	if len(n.Stmts) == 0 {
		return Span{}
	}
	return n.Stmts[0].Pos().Join(n.Stmts[len(n.Stmts)-1].Pos())
}

func (n *FnDecl) Pos() Span         { return n.Span }
func (n *Param) Pos() Span          { return n.Span }
func (n *TypeExpr) Pos() Span       { return n.Span }
func (n *Arg) Pos() Span            { return n.Span }
func (n *RecordField) Pos() Span    { return n.Span }
func (n *MatchArm) Pos() Span       { return n.Span }
func (n *WithEntry) Pos() Span      { return n.Span }
func (n *CmdCall) Pos() Span        { return n.Span }
func (n *CmdArg) Pos() Span         { return n.Span }
func (n *Redirect) Pos() Span       { return n.Span }
func (n *EnvPrefix) Pos() Span      { return n.Span }
func (n *RecordPatField) Pos() Span { return n.Span }
