package syntax

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// MarshalProgram renders p in the stable JSON form of the AST (ast_version
// 2): {"stmts":[...]}. Every node is an object whose "kind" is the
// snake_case node name with a Stmt/Lit suffix dropped (let, fn, int, str,
// str_interp, method_call, cmd, ...; patterns keep a _pat suffix such as
// bind_pat), followed by its fields in snake_case and "span":{"start","end"}.
// A Go field named Kind is written under its type's name (arg_kind,
// redirect_kind). Absent optional nodes are null; empty lists are [].
func MarshalProgram(p *Program) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("marshal program: nil program")
	}
	e := &jenc{buf: make([]byte, 0, 256)}
	e.raw(`{"stmts":`)
	e.stmts(p.Stmts)
	e.raw("}")
	if e.err != nil {
		return nil, fmt.Errorf("marshal program: %w", e.err)
	}
	return e.buf, nil
}

type jenc struct {
	buf []byte
	err error
}

func (e *jenc) raw(s string) { e.buf = append(e.buf, s...) }

// open starts a node object with its kind.
func (e *jenc) open(kind string) {
	e.raw(`{"kind":"`)
	e.raw(kind)
	e.raw(`"`)
}

// close ends a node object with its span.
func (e *jenc) close(s Span) {
	e.raw(`,"span":{"start":`)
	e.buf = strconv.AppendInt(e.buf, int64(s.Start), 10)
	e.raw(`,"end":`)
	e.buf = strconv.AppendInt(e.buf, int64(s.End), 10)
	e.raw("}}")
}

func (e *jenc) key(k string) {
	e.raw(`,"`)
	e.raw(k)
	e.raw(`":`)
}

func (e *jenc) str(k, v string) {
	e.key(k)
	e.quote(v)
}

func (e *jenc) boolean(k string, v bool) {
	e.key(k)
	e.buf = strconv.AppendBool(e.buf, v)
}

func (e *jenc) int(k string, v int64) {
	e.key(k)
	e.buf = strconv.AppendInt(e.buf, v, 10)
}

func (e *jenc) quote(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			e.buf = append(e.buf, s[start:i]...)
			switch c {
			case '"', '\\':
				e.buf = append(e.buf, '\\', c)
			case '\n':
				e.raw(`\n`)
			case '\r':
				e.raw(`\r`)
			case '\t':
				e.raw(`\t`)
			default:
				e.raw(`\u00`)
				e.buf = append(e.buf, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			e.buf = append(e.buf, s[start:i]...)
			e.raw(`\ufffd`)
			i += w
			start = i
			continue
		}
		i += w
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

func (e *jenc) stmts(ss []Stmt) {
	e.raw("[")
	for i, s := range ss {
		if i > 0 {
			e.raw(",")
		}
		e.stmt(s)
	}
	e.raw("]")
}

func (e *jenc) exprs(k string, xs []Expr) {
	e.key(k)
	e.raw("[")
	for i, x := range xs {
		if i > 0 {
			e.raw(",")
		}
		e.expr(x)
	}
	e.raw("]")
}

func (e *jenc) exprField(k string, x Expr) {
	e.key(k)
	e.expr(x)
}

func (e *jenc) blockField(k string, b *Block) {
	e.key(k)
	if b == nil {
		e.raw("null")
		return
	}
	e.expr(b)
}

func (e *jenc) typeField(k string, t *TypeExpr) {
	e.key(k)
	e.typ(t)
}

func (e *jenc) typ(t *TypeExpr) {
	if t == nil {
		e.raw("null")
		return
	}
	e.open("type")
	e.str("name", t.Name)
	e.key("args")
	e.raw("[")
	for i, a := range t.Args {
		if i > 0 {
			e.raw(",")
		}
		e.typ(a)
	}
	e.raw("]")
	e.boolean("optional", t.Optional)
	e.close(t.Span)
}

func (e *jenc) param(prm *Param) {
	if prm == nil {
		e.raw("null")
		return
	}
	e.open("param")
	e.str("name", prm.Name)
	e.typeField("type", prm.Type)
	e.exprField("default", prm.Default)
	e.close(prm.Span)
}

func (e *jenc) params(k string, ps []*Param) {
	e.key(k)
	e.raw("[")
	for i, prm := range ps {
		if i > 0 {
			e.raw(",")
		}
		e.param(prm)
	}
	e.raw("]")
}

func (e *jenc) args(as []*Arg) {
	e.key("args")
	e.raw("[")
	for i, a := range as {
		if i > 0 {
			e.raw(",")
		}
		e.open("arg")
		e.str("name", a.Name)
		e.exprField("value", a.Value)
		e.close(a.Span)
	}
	e.raw("]")
}

func (e *jenc) stmt(s Stmt) {
	switch n := s.(type) {
	case *LetStmt:
		e.open("let")
		e.str("name", n.Name)
		e.typeField("type", n.Type)
		e.exprField("init", n.Init)
		e.boolean("mutable", n.Mutable)
		e.boolean("exported", n.Exported)
		e.close(n.Span)
	case *FnStmt:
		e.open("fn")
		e.key("decl")
		e.fnDecl(n.Decl)
		e.close(n.Span)
	case *AliasStmt:
		e.open("alias")
		e.str("name", n.Name)
		e.key("target")
		e.cmdCall(n.Target)
		e.close(n.Span)
	case *UseStmt:
		e.open("use")
		e.str("path", n.Path)
		e.close(n.Span)
	case *AssignStmt:
		e.open("assign")
		e.exprField("target", n.Target)
		e.str("op", n.Op.String())
		e.exprField("value", n.Value)
		e.close(n.Span)
	case *ReturnStmt:
		e.open("return")
		e.exprField("value", n.Value)
		e.close(n.Span)
	case *BreakStmt:
		e.open("break")
		e.close(n.Span)
	case *ContinueStmt:
		e.open("continue")
		e.close(n.Span)
	case *ForStmt:
		e.open("for")
		e.str("var", n.Var)
		e.exprField("iter", n.Iter)
		e.blockField("body", n.Body)
		e.close(n.Span)
	case *WhileStmt:
		e.open("while")
		e.exprField("cond", n.Cond)
		e.blockField("body", n.Body)
		e.close(n.Span)
	case *ExprStmt:
		e.open("expr")
		e.exprField("x", n.X)
		e.close(n.Span)
	case nil:
		e.raw("null")
	default:
		e.err = fmt.Errorf("unknown statement node %T", s)
		e.raw("null")
	}
}

func (e *jenc) fnDecl(d *FnDecl) {
	if d == nil {
		e.raw("null")
		return
	}
	e.open("fn_decl")
	e.str("name", d.Name)
	e.params("params", d.Params)
	e.key("rest")
	e.param(d.Rest)
	e.typeField("return", d.Return)
	e.blockField("body", d.Body)
	e.str("doc", d.Doc)
	e.boolean("exported", d.Exported)
	e.close(d.Span)
}

func (e *jenc) expr(x Expr) {
	switch n := x.(type) {
	case nil:
		e.raw("null")
	case *NullLit:
		e.open("null")
		e.close(n.Span)
	case *BoolLit:
		e.open("bool")
		e.boolean("value", n.Value)
		e.close(n.Span)
	case *IntLit:
		e.open("int")
		e.int("value", n.Value)
		e.close(n.Span)
	case *FloatLit:
		e.open("float")
		e.key("value")
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			e.quote(strconv.FormatFloat(n.Value, 'g', -1, 64))
		} else {
			e.buf = strconv.AppendFloat(e.buf, n.Value, 'g', -1, 64)
		}
		e.close(n.Span)
	case *StrLit:
		e.open("str")
		e.str("value", n.Value)
		e.boolean("raw", n.Raw)
		e.close(n.Span)
	case *StrInterp:
		e.open("str_interp")
		e.key("parts")
		e.raw("[")
		for i, part := range n.Parts {
			if i > 0 {
				e.raw(",")
			}
			e.raw(`{"kind":"str_part"`)
			e.str("lit", part.Lit)
			e.exprField("x", part.X)
			e.raw("}")
		}
		e.raw("]")
		e.close(n.Span)
	case *SizeLit:
		e.open("size")
		e.int("bytes", n.Bytes)
		e.close(n.Span)
	case *DurationLit:
		e.open("duration")
		e.int("nanos", n.Nanos)
		e.close(n.Span)
	case *TimeLit:
		e.open("time")
		e.int("nanos", n.Nanos)
		e.boolean("has_seconds", n.HasSeconds)
		e.close(n.Span)
	case *DateTimeLit:
		e.open("date_time")
		e.str("text", n.Text)
		e.close(n.Span)
	case *RegexLit:
		e.open("regex")
		e.str("pattern", n.Pattern)
		e.close(n.Span)
	case *Var:
		e.open("var")
		e.str("name", n.Name)
		e.close(n.Span)
	case *Field:
		e.open("field")
		e.exprField("x", n.X)
		e.str("name", n.Name)
		e.boolean("optional", n.Optional)
		e.close(n.Span)
	case *Index:
		e.open("index")
		e.exprField("x", n.X)
		e.exprField("index", n.Index)
		e.close(n.Span)
	case *MethodCall:
		e.open("method_call")
		e.exprField("x", n.X)
		e.str("name", n.Name)
		e.args(n.Args)
		e.boolean("optional", n.Optional)
		e.blockField("trailing", n.Trailing)
		e.close(n.Span)
	case *Call:
		e.open("call")
		e.exprField("fn", n.Fn)
		e.args(n.Args)
		e.blockField("trailing", n.Trailing)
		e.close(n.Span)
	case *List:
		e.open("list")
		e.exprs("elems", n.Elems)
		e.close(n.Span)
	case *Record:
		e.open("record")
		e.key("fields")
		e.raw("[")
		for i, f := range n.Fields {
			if i > 0 {
				e.raw(",")
			}
			e.open("record_field")
			e.str("key", f.Key)
			e.exprField("value", f.Value)
			e.close(f.Span)
		}
		e.raw("]")
		e.close(n.Span)
	case *Block:
		e.open("block")
		e.key("stmts")
		e.stmts(n.Stmts)
		e.close(n.Span)
	case *Lambda:
		e.open("lambda")
		e.params("params", n.Params)
		e.exprField("body", n.Body)
		e.boolean("implicit", n.Implicit)
		e.close(n.Span)
	case *If:
		e.open("if")
		e.exprField("cond", n.Cond)
		e.blockField("then", n.Then)
		e.exprField("else", n.Else)
		e.close(n.Span)
	case *Match:
		e.open("match")
		e.exprField("subject", n.Subject)
		e.key("arms")
		e.raw("[")
		for i, a := range n.Arms {
			if i > 0 {
				e.raw(",")
			}
			e.open("match_arm")
			e.key("patterns")
			e.raw("[")
			for j, pt := range a.Patterns {
				if j > 0 {
					e.raw(",")
				}
				e.pattern(pt)
			}
			e.raw("]")
			e.exprField("guard", a.Guard)
			e.exprField("body", a.Body)
			e.close(a.Span)
		}
		e.raw("]")
		e.close(n.Span)
	case *Try:
		e.open("try")
		e.blockField("body", n.Body)
		e.str("binder", n.Binder)
		e.blockField("handler", n.Handler)
		e.close(n.Span)
	case *Catch:
		e.open("catch")
		e.exprField("x", n.X)
		e.str("binder", n.Binder)
		e.exprField("handler", n.Handler)
		e.close(n.Span)
	case *With:
		e.open("with")
		e.key("entries")
		e.raw("[")
		for i, w := range n.Entries {
			if i > 0 {
				e.raw(",")
			}
			e.open("with_entry")
			e.str("key", w.Key)
			e.exprField("value", w.Value)
			e.close(w.Span)
		}
		e.raw("]")
		e.blockField("body", n.Body)
		e.close(n.Span)
	case *Spawn:
		e.open("spawn")
		e.blockField("body", n.Body)
		e.close(n.Span)
	case *LangBlock:
		e.open("lang_block")
		e.str("tool", n.Tool)
		e.str("source", n.Source)
		e.close(n.Span)
	case *Binary:
		e.open("binary")
		e.str("op", n.Op.String())
		e.exprField("l", n.L)
		e.exprField("r", n.R)
		e.close(n.Span)
	case *Unary:
		e.open("unary")
		e.str("op", n.Op.String())
		e.exprField("x", n.X)
		e.close(n.Span)
	case *Range:
		e.open("range")
		e.exprField("lo", n.Lo)
		e.exprField("hi", n.Hi)
		e.boolean("inclusive", n.Inclusive)
		e.close(n.Span)
	case *Cmd:
		e.open("cmd")
		e.key("call")
		e.cmdCall(n.Call)
		e.close(n.Span)
	default:
		e.err = fmt.Errorf("unknown expression node %T", x)
		e.raw("null")
	}
}

func (e *jenc) cmdCall(c *CmdCall) {
	if c == nil {
		e.raw("null")
		return
	}
	e.open("cmd_call")
	e.key("env")
	e.raw("[")
	for i, ep := range c.Env {
		if i > 0 {
			e.raw(",")
		}
		e.open("env_prefix")
		e.str("name", ep.Name)
		e.key("value")
		e.cmdArg(ep.Value)
		e.close(ep.Span)
	}
	e.raw("]")
	e.boolean("forced", c.Forced)
	e.key("head")
	e.cmdArg(c.Head)
	e.key("args")
	e.raw("[")
	for i, a := range c.Args {
		if i > 0 {
			e.raw(",")
		}
		e.cmdArg(a)
	}
	e.raw("]")
	e.key("redirects")
	e.raw("[")
	for i, r := range c.Redirects {
		if i > 0 {
			e.raw(",")
		}
		e.open("redirect")
		e.str("redirect_kind", r.Kind.String())
		e.key("target")
		e.cmdArg(r.Target)
		e.close(r.Span)
	}
	e.raw("]")
	e.boolean("background", c.Background)
	e.blockField("trailing", c.Trailing)
	e.close(c.Span)
}

func (e *jenc) cmdArg(a *CmdArg) {
	if a == nil {
		e.raw("null")
		return
	}
	e.open("cmd_arg")
	e.str("arg_kind", a.Kind.String())
	e.str("text", a.Text)
	e.str("name", a.Name)
	e.key("value")
	e.cmdArg(a.Value)
	e.exprField("x", a.X)
	e.close(a.Span)
}

func (e *jenc) pattern(pt Pattern) {
	switch n := pt.(type) {
	case *WildcardPat:
		e.open("wildcard_pat")
		e.close(n.Span)
	case *BindPat:
		e.open("bind_pat")
		e.str("name", n.Name)
		e.close(n.Span)
	case *LitPat:
		e.open("lit_pat")
		e.exprField("value", n.Value)
		e.close(n.Span)
	case *RangePat:
		e.open("range_pat")
		e.int("lo", n.Lo)
		e.int("hi", n.Hi)
		e.boolean("inclusive", n.Inclusive)
		e.close(n.Span)
	case *TypePat:
		e.open("type_pat")
		e.str("type", n.Type)
		e.str("binder", n.Binder)
		e.close(n.Span)
	case *RecordPat:
		e.open("record_pat")
		e.key("fields")
		e.raw("[")
		for i, f := range n.Fields {
			if i > 0 {
				e.raw(",")
			}
			e.open("record_pat_field")
			e.str("key", f.Key)
			e.key("pat")
			e.pattern(f.Pat)
			e.close(f.Span)
		}
		e.raw("]")
		e.close(n.Span)
	case *ListPat:
		e.open("list_pat")
		e.key("elems")
		e.raw("[")
		for i, el := range n.Elems {
			if i > 0 {
				e.raw(",")
			}
			e.pattern(el)
		}
		e.raw("]")
		e.boolean("has_rest", n.HasRest)
		e.str("rest", n.Rest)
		e.close(n.Span)
	case nil:
		e.raw("null")
	default:
		e.err = fmt.Errorf("unknown pattern node %T", pt)
		e.raw("null")
	}
}
