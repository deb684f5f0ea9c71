package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// sexpr renders a program compactly for table tests: statements separated
// by "; ", nodes as (kind fields...).
func sexpr(p *Program) string {
	var b strings.Builder
	for i, s := range p.Stmts {
		if i > 0 {
			b.WriteString("; ")
		}
		writeStmt(&b, s)
	}
	return b.String()
}

func writeStmt(b *strings.Builder, s Stmt) {
	switch n := s.(type) {
	case *ExprStmt:
		writeExpr(b, n.X)
	case *LetStmt:
		kw := "let"
		if n.Mutable {
			kw = "var"
		}
		if n.Exported {
			kw = "export-" + kw
		}
		fmt.Fprintf(b, "(%s %s", kw, n.Name)
		if n.Type != nil {
			b.WriteString(" :" + typeString(n.Type))
		}
		b.WriteByte(' ')
		writeExpr(b, n.Init)
		b.WriteByte(')')
	case *AssignStmt:
		fmt.Fprintf(b, "(%s ", n.Op)
		writeExpr(b, n.Target)
		b.WriteByte(' ')
		writeExpr(b, n.Value)
		b.WriteByte(')')
	case *FnStmt:
		d := n.Decl
		fmt.Fprintf(b, "(fn %s (", d.Name)
		for i, prm := range d.Params {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeParam(b, prm)
		}
		if d.Rest != nil {
			b.WriteString(" ...")
			writeParam(b, d.Rest)
		}
		b.WriteString(")")
		if d.Return != nil {
			b.WriteString(" -> " + typeString(d.Return))
		}
		if d.Doc != "" {
			fmt.Fprintf(b, " doc=%q", d.Doc)
		}
		b.WriteByte(' ')
		writeExpr(b, d.Body)
		b.WriteByte(')')
	case *AliasStmt:
		fmt.Fprintf(b, "(alias %s ", n.Name)
		writeCall(b, n.Target)
		b.WriteByte(')')
	case *UseStmt:
		if n.As != "" {
			fmt.Fprintf(b, "(use %s as %s)", n.Path, n.As)
		} else {
			fmt.Fprintf(b, "(use %s)", n.Path)
		}
	case *ReturnStmt:
		b.WriteString("(return")
		if n.Value != nil {
			b.WriteByte(' ')
			writeExpr(b, n.Value)
		}
		b.WriteByte(')')
	case *BreakStmt:
		b.WriteString("(break)")
	case *ContinueStmt:
		b.WriteString("(continue)")
	case *ForStmt:
		fmt.Fprintf(b, "(for %s ", n.Var)
		writeExpr(b, n.Iter)
		b.WriteByte(' ')
		writeExpr(b, n.Body)
		b.WriteByte(')')
	case *WhileStmt:
		b.WriteString("(while ")
		writeExpr(b, n.Cond)
		b.WriteByte(' ')
		writeExpr(b, n.Body)
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "?%T", s)
	}
}

func writeParam(b *strings.Builder, prm *Param) {
	b.WriteString(prm.Name)
	if prm.Type != nil {
		b.WriteString(":" + typeString(prm.Type))
	}
	if prm.Default != nil {
		b.WriteByte('=')
		writeExpr(b, prm.Default)
	}
}

func typeString(t *TypeExpr) string {
	s := t.Name
	if len(t.Args) > 0 {
		var parts []string
		for _, a := range t.Args {
			parts = append(parts, typeString(a))
		}
		s += "<" + strings.Join(parts, ",") + ">"
	}
	if t.Optional {
		s += "?"
	}
	return s
}

func writeArgs(b *strings.Builder, args []*Arg) {
	for _, a := range args {
		b.WriteByte(' ')
		if a.Name != "" {
			b.WriteString(a.Name + ":")
		}
		writeExpr(b, a.Value)
	}
}

func writeExpr(b *strings.Builder, x Expr) {
	switch n := x.(type) {
	case nil:
		b.WriteString("nil")
	case *NullLit:
		b.WriteString("null")
	case *BoolLit:
		b.WriteString(strconv.FormatBool(n.Value))
	case *IntLit:
		b.WriteString(strconv.FormatInt(n.Value, 10))
	case *FloatLit:
		b.WriteString("f" + strconv.FormatFloat(n.Value, 'g', -1, 64))
	case *StrLit:
		if n.Raw {
			b.WriteString("r")
		}
		b.WriteString(strconv.Quote(n.Value))
	case *StrInterp:
		b.WriteString("(interp")
		for _, part := range n.Parts {
			b.WriteByte(' ')
			if part.X != nil {
				b.WriteByte('{')
				writeExpr(b, part.X)
				b.WriteByte('}')
			} else {
				b.WriteString(strconv.Quote(part.Lit))
			}
		}
		b.WriteByte(')')
	case *SizeLit:
		fmt.Fprintf(b, "%dB", n.Bytes)
	case *DurationLit:
		fmt.Fprintf(b, "%dns", n.Nanos)
	case *TimeLit:
		fmt.Fprintf(b, "(time %d %v)", n.Nanos/1e9, n.HasSeconds)
	case *DateTimeLit:
		fmt.Fprintf(b, "(t %q)", n.Text)
	case *RegexLit:
		fmt.Fprintf(b, "(re %q)", n.Pattern)
	case *PathLit:
		fmt.Fprintf(b, "(path %q)", n.Path)
	case *Var:
		b.WriteString(n.Name)
	case *Field:
		b.WriteString("(.")
		if n.Optional {
			b.WriteString("?")
		}
		b.WriteByte(' ')
		writeExpr(b, n.X)
		b.WriteString(" " + n.Name + ")")
	case *Index:
		b.WriteString("([] ")
		writeExpr(b, n.X)
		b.WriteByte(' ')
		writeExpr(b, n.Index)
		b.WriteByte(')')
	case *MethodCall:
		b.WriteString("(.")
		if n.Optional {
			b.WriteString("?")
		}
		b.WriteString(n.Name + " ")
		writeExpr(b, n.X)
		writeArgs(b, n.Args)
		if n.Trailing != nil {
			b.WriteString(" &")
			writeExpr(b, n.Trailing)
		}
		b.WriteByte(')')
	case *Call:
		b.WriteString("(call ")
		writeExpr(b, n.Fn)
		writeArgs(b, n.Args)
		if n.Trailing != nil {
			b.WriteString(" &")
			writeExpr(b, n.Trailing)
		}
		b.WriteByte(')')
	case *List:
		b.WriteString("[")
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeExpr(b, e)
		}
		b.WriteString("]")
	case *Record:
		b.WriteString("{")
		for i, f := range n.Fields {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f.Key + ":")
			writeExpr(b, f.Value)
		}
		b.WriteString("}")
	case *Block:
		b.WriteString("(block")
		for _, s := range n.Stmts {
			b.WriteByte(' ')
			writeStmt(b, s)
		}
		b.WriteByte(')')
	case *Lambda:
		b.WriteString("(lambda")
		if n.Implicit {
			b.WriteString("*")
		}
		b.WriteString(" (")
		for i, prm := range n.Params {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeParam(b, prm)
		}
		b.WriteString(") ")
		writeExpr(b, n.Body)
		b.WriteByte(')')
	case *If:
		b.WriteString("(if ")
		writeExpr(b, n.Cond)
		b.WriteByte(' ')
		writeExpr(b, n.Then)
		if n.Else != nil {
			b.WriteByte(' ')
			writeExpr(b, n.Else)
		}
		b.WriteByte(')')
	case *Match:
		b.WriteString("(match ")
		writeExpr(b, n.Subject)
		for _, a := range n.Arms {
			b.WriteString(" (")
			for i, pt := range a.Patterns {
				if i > 0 {
					b.WriteString(" | ")
				}
				writePat(b, pt)
			}
			if a.Guard != nil {
				b.WriteString(" if ")
				writeExpr(b, a.Guard)
			}
			b.WriteString(" => ")
			writeExpr(b, a.Body)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	case *Try:
		b.WriteString("(try ")
		writeExpr(b, n.Body)
		fmt.Fprintf(b, " catch %q ", n.Binder)
		writeExpr(b, n.Handler)
		b.WriteByte(')')
	case *Catch:
		b.WriteString("(catch ")
		writeExpr(b, n.X)
		fmt.Fprintf(b, " %q ", n.Binder)
		writeExpr(b, n.Handler)
		b.WriteByte(')')
	case *With:
		b.WriteString("(with")
		for _, e := range n.Entries {
			b.WriteString(" " + e.Key + ":")
			writeExpr(b, e.Value)
		}
		b.WriteByte(' ')
		writeExpr(b, n.Body)
		b.WriteByte(')')
	case *Spawn:
		b.WriteString("(spawn ")
		writeExpr(b, n.Body)
		b.WriteByte(')')
	case *LangBlock:
		fmt.Fprintf(b, "(lang %s %q)", n.Tool, n.Source)
	case *Binary:
		fmt.Fprintf(b, "(%s ", n.Op)
		writeExpr(b, n.L)
		b.WriteByte(' ')
		writeExpr(b, n.R)
		b.WriteByte(')')
	case *Unary:
		fmt.Fprintf(b, "(%s ", n.Op)
		writeExpr(b, n.X)
		b.WriteByte(')')
	case *Range:
		op := ".."
		if n.Inclusive {
			op = "..="
		}
		fmt.Fprintf(b, "(%s ", op)
		writeExpr(b, n.Lo)
		b.WriteByte(' ')
		writeExpr(b, n.Hi)
		b.WriteByte(')')
	case *Cmd:
		writeCall(b, n.Call)
	default:
		fmt.Fprintf(b, "?%T", x)
	}
}

func writeCall(b *strings.Builder, c *CmdCall) {
	b.WriteString("(cmd")
	for _, e := range c.Env {
		b.WriteString(" " + e.Name + "=")
		writeArg(b, e.Value)
	}
	b.WriteByte(' ')
	if c.Forced {
		b.WriteByte('^')
	}
	writeArg(b, c.Head)
	for _, a := range c.Args {
		b.WriteByte(' ')
		writeArg(b, a)
	}
	for _, r := range c.Redirects {
		fmt.Fprintf(b, " %s:", r.Kind)
		writeArg(b, r.Target)
	}
	if c.Background {
		b.WriteString(" &")
	}
	if c.Trailing != nil {
		b.WriteString(" &")
		writeExpr(b, c.Trailing)
	}
	b.WriteByte(')')
}

func writeArg(b *strings.Builder, a *CmdArg) {
	switch a.Kind {
	case ArgWord:
		b.WriteString(a.Text)
	case ArgPath:
		b.WriteString("path:" + a.Text)
	case ArgGlob:
		b.WriteString("glob:" + a.Text)
	case ArgStr, ArgExpr:
		b.WriteString(a.Kind.String() + ":")
		writeExpr(b, a.X)
	case ArgLongFlag:
		b.WriteString("--" + a.Name)
		if a.Value != nil {
			b.WriteByte('=')
			writeArg(b, a.Value)
		}
	case ArgShortFlag:
		b.WriteString("-" + a.Text)
	case ArgDashDash:
		b.WriteString("dashdash")
	case ArgDash:
		b.WriteString("dash")
	}
}

func writePat(b *strings.Builder, pt Pattern) {
	switch n := pt.(type) {
	case *WildcardPat:
		b.WriteString("_")
	case *BindPat:
		b.WriteString(n.Name)
	case *LitPat:
		writeExpr(b, n.Value)
	case *RangePat:
		op := ".."
		if n.Inclusive {
			op = "..="
		}
		fmt.Fprintf(b, "%d%s%d", n.Lo, op, n.Hi)
	case *TypePat:
		fmt.Fprintf(b, "(%s %s)", n.Type, n.Binder)
	case *RecordPat:
		b.WriteString("{")
		for i, f := range n.Fields {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f.Key)
			if f.Pat != nil {
				b.WriteByte(':')
				writePat(b, f.Pat)
			}
		}
		b.WriteString("}")
	case *ListPat:
		b.WriteString("[")
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			writePat(b, e)
		}
		if n.HasRest {
			b.WriteString(" ..." + n.Rest)
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(b, "?%T", pt)
	}
}
