package syntax

// This file maps scanned JSON objects to AST nodes, one case per kind
// written by MarshalProgram.

// child decodes the object field k with decode; null yields the zero value
// when nullable and is an error otherwise.
func child[T any](o *obj, k string, nullable bool, decode func(int32) T) T {
	n := o.at(k)
	defer o.d.pop()
	if o.null(n) {
		if !nullable {
			o.d.failf("must not be null")
		}
		var zero T
		return zero
	}
	o.d.enterNode()
	defer o.d.leaveNode()
	return decode(n)
}

// elems decodes the array field k, none of whose elements may be null.
func elems[T any](o *obj, k string, decode func(int32) T) []T {
	cnt := o.length(k)
	var out []T
	if cnt > 0 {
		out = make([]T, 0, cnt)
	}
	o.list(k, func(_ int, n int32) {
		if o.null(n) {
			o.d.failf("must not be null")
		}
		o.d.enterNode()
		out = append(out, decode(n))
		o.d.leaveNode()
	})
	return out
}

// enterNode counts a node about to be decoded one level below the current
// one, failing past MaxNodes nodes or MaxDepth levels: the bounds a parsed
// tree keeps. leaveNode ends its level.
func (d *dec) enterNode() {
	d.depth++
	d.count++
	switch {
	case d.depth > MaxDepth:
		d.failf("AST nested deeper than %d nodes", MaxDepth)
	case d.count > MaxNodes:
		d.failf("AST of more than %d nodes", MaxNodes)
	}
}

func (d *dec) leaveNode() { d.depth-- }

// expectKind checks that the object n has the given kind.
func (d *dec) expectKind(n int32, want string) {
	if k := d.kindOf(n); k != want {
		d.failKey("kind", "expected kind %q, got %q", want, k)
	}
}

func (d *dec) unknownKind(what, kind string) {
	d.failKey("kind", "unknown %s kind %q", what, kind)
}

func (d *dec) stmtList(n int32) []Stmt {
	d.want(n, jArr)
	var out []Stmt
	if c := d.nodes[n].count; c > 0 {
		out = make([]Stmt, 0, c)
	}
	d.each(n, func(_ int, c int32) {
		if d.nodes[c].typ == jNull {
			d.failf("must not be null")
		}
		d.enterNode()
		out = append(out, d.stmt(c))
		d.leaveNode()
	})
	return out
}

func (d *dec) stmt(n int32) Stmt {
	switch kind := d.kindOf(n); kind {
	case "let":
		o := d.fields(n, "name", "type", "init", "mutable", "exported")
		return &LetStmt{Name: o.str("name"), Type: child(&o, "type", true, d.typeExpr),
			Init: child(&o, "init", false, d.expr), Mutable: o.boolean("mutable"),
			Exported: o.boolean("exported"), Span: o.span()}
	case "fn":
		o := d.fields(n, "decl")
		return &FnStmt{Decl: child(&o, "decl", false, d.fnDecl), Span: o.span()}
	case "alias":
		o := d.fields(n, "name", "target")
		return &AliasStmt{Name: o.str("name"), Target: child(&o, "target", false, d.cmdCall), Span: o.span()}
	case "use":
		o := d.fields(n, "path")
		return &UseStmt{Path: o.str("path"), Span: o.span()}
	case "use_as":
		o := d.fields(n, "path", "as")
		return &UseStmt{Path: o.str("path"), As: o.str("as"), Span: o.span()}
	case "assign":
		o := d.fields(n, "target", "op", "value")
		s := &AssignStmt{Target: child(&o, "target", false, d.assignTarget),
			Op: AssignOp(enumIndex(assignOpNames[:], o.enum("op", assignOpNames[1:]...))), Value: child(&o, "value", false, d.expr)}
		s.Span = o.span()
		return s
	case "return":
		o := d.fields(n, "value")
		return &ReturnStmt{Value: child(&o, "value", true, d.expr), Span: o.span()}
	case "break":
		o := d.fields(n)
		return &BreakStmt{Span: o.span()}
	case "continue":
		o := d.fields(n)
		return &ContinueStmt{Span: o.span()}
	case "for":
		o := d.fields(n, "var", "iter", "body")
		return &ForStmt{Var: o.str("var"), Iter: child(&o, "iter", false, d.expr),
			Body: child(&o, "body", false, d.block), Span: o.span()}
	case "while":
		o := d.fields(n, "cond", "body")
		return &WhileStmt{Cond: child(&o, "cond", false, d.expr), Body: child(&o, "body", false, d.block), Span: o.span()}
	case "expr":
		o := d.fields(n, "x")
		return &ExprStmt{X: child(&o, "x", false, d.expr), Span: o.span()}
	default:
		d.unknownKind("statement", kind)
		return nil
	}
}

// assignTarget is an expression that can be assigned: a var, field or index.
func (d *dec) assignTarget(n int32) Expr {
	switch k := d.kindOf(n); k {
	case "var", "field", "index":
		return d.expr(n)
	default:
		d.failKey("kind", "assignment target must be a var, field or index, got %q", k)
		return nil
	}
}

func (d *dec) typeExpr(n int32) *TypeExpr {
	d.expectKind(n, "type")
	o := d.fields(n, "name", "args", "optional")
	return &TypeExpr{Name: o.str("name"), Args: elems(&o, "args", d.typeExpr),
		Optional: o.boolean("optional"), Span: o.span()}
}

func (d *dec) param(n int32) *Param {
	d.expectKind(n, "param")
	o := d.fields(n, "name", "type", "default")
	return &Param{Name: o.str("name"), Type: child(&o, "type", true, d.typeExpr),
		Default: child(&o, "default", true, d.expr), Span: o.span()}
}

func (d *dec) fnDecl(n int32) *FnDecl {
	d.expectKind(n, "fn_decl")
	o := d.fields(n, "name", "params", "rest", "return", "body", "doc", "exported")
	return &FnDecl{Name: o.str("name"), Params: elems(&o, "params", d.param),
		Rest: child(&o, "rest", true, d.param), Return: child(&o, "return", true, d.typeExpr),
		Body: child(&o, "body", false, d.block), Doc: o.str("doc"),
		Exported: o.boolean("exported"), Span: o.span()}
}

func (d *dec) block(n int32) *Block {
	d.expectKind(n, "block")
	o := d.fields(n, "stmts")
	b := &Block{}
	d.pushMember(o.vals[0])
	b.Stmts = d.stmtList(o.vals[0])
	d.pop()
	b.Span = o.span()
	return b
}

func (d *dec) arg(n int32) *Arg {
	d.expectKind(n, "arg")
	o := d.fields(n, "name", "value")
	return &Arg{Name: o.str("name"), Value: child(&o, "value", false, d.expr), Span: o.span()}
}

// elseExpr is the else branch of an if: a block or another if.
func (d *dec) elseExpr(n int32) Expr {
	switch k := d.kindOf(n); k {
	case "block", "if":
		return d.expr(n)
	default:
		d.failKey("kind", "else must be a block or an if, got %q", k)
		return nil
	}
}

func (d *dec) expr(n int32) Expr {
	switch kind := d.kindOf(n); kind {
	case "null":
		o := d.fields(n)
		return &NullLit{Span: o.span()}
	case "bool":
		o := d.fields(n, "value")
		return &BoolLit{Value: o.boolean("value"), Span: o.span()}
	case "int":
		o := d.fields(n, "value")
		return &IntLit{Value: o.int64("value"), Span: o.span()}
	case "float":
		o := d.fields(n, "value")
		return &FloatLit{Value: o.float("value"), Span: o.span()}
	case "str":
		o := d.fields(n, "value", "raw")
		return &StrLit{Value: o.str("value"), Raw: o.boolean("raw"), Span: o.span()}
	case "str_interp":
		o := d.fields(n, "parts")
		return &StrInterp{Parts: elems(&o, "parts", d.strPart), Span: o.span()}
	case "size":
		o := d.fields(n, "bytes")
		return &SizeLit{Bytes: o.int64("bytes"), Span: o.span()}
	case "duration":
		o := d.fields(n, "nanos")
		return &DurationLit{Nanos: o.int64("nanos"), Span: o.span()}
	case "time":
		o := d.fields(n, "nanos", "has_seconds")
		return &TimeLit{Nanos: o.int64("nanos"), HasSeconds: o.boolean("has_seconds"), Span: o.span()}
	case "date_time":
		o := d.fields(n, "text")
		return &DateTimeLit{Text: o.str("text"), Span: o.span()}
	case "path":
		o := d.fields(n, "path")
		return &PathLit{Path: o.str("path"), Span: o.span()}
	case "regex":
		o := d.fields(n, "pattern")
		return &RegexLit{Pattern: o.str("pattern"), Span: o.span()}
	case "var":
		o := d.fields(n, "name")
		return &Var{Name: o.str("name"), Span: o.span()}
	case "field":
		o := d.fields(n, "x", "name", "optional")
		return &Field{X: child(&o, "x", false, d.expr), Name: o.str("name"),
			Optional: o.boolean("optional"), Span: o.span()}
	case "index":
		o := d.fields(n, "x", "index")
		return &Index{X: child(&o, "x", false, d.expr), Index: child(&o, "index", false, d.expr), Span: o.span()}
	case "method_call":
		o := d.fields(n, "x", "name", "args", "optional", "trailing")
		return &MethodCall{X: child(&o, "x", false, d.expr), Name: o.str("name"),
			Args: elems(&o, "args", d.arg), Optional: o.boolean("optional"),
			Trailing: child(&o, "trailing", true, d.block), Span: o.span()}
	case "call":
		o := d.fields(n, "fn", "args", "trailing")
		return &Call{Fn: child(&o, "fn", false, d.expr), Args: elems(&o, "args", d.arg),
			Trailing: child(&o, "trailing", true, d.block), Span: o.span()}
	case "list":
		o := d.fields(n, "elems")
		return &List{Elems: elems(&o, "elems", d.expr), Span: o.span()}
	case "record":
		o := d.fields(n, "fields")
		return &Record{Fields: elems(&o, "fields", d.recordField), Span: o.span()}
	case "block":
		return d.block(n)
	case "lambda":
		o := d.fields(n, "params", "body", "implicit")
		return &Lambda{Params: elems(&o, "params", d.param), Body: child(&o, "body", false, d.expr),
			Implicit: o.boolean("implicit"), Span: o.span()}
	case "if":
		o := d.fields(n, "cond", "then", "else")
		return &If{Cond: child(&o, "cond", false, d.expr), Then: child(&o, "then", false, d.block),
			Else: child(&o, "else", true, d.elseExpr), Span: o.span()}
	case "match":
		o := d.fields(n, "subject", "arms")
		return &Match{Subject: child(&o, "subject", false, d.expr), Arms: elems(&o, "arms", d.matchArm), Span: o.span()}
	case "try":
		o := d.fields(n, "body", "binder", "handler")
		return &Try{Body: child(&o, "body", false, d.block), Binder: o.str("binder"),
			Handler: child(&o, "handler", false, d.block), Span: o.span()}
	case "catch":
		o := d.fields(n, "x", "binder", "handler")
		return &Catch{X: child(&o, "x", false, d.expr), Binder: o.str("binder"),
			Handler: child(&o, "handler", false, d.expr), Span: o.span()}
	case "with":
		o := d.fields(n, "entries", "body")
		return &With{Entries: elems(&o, "entries", d.withEntry), Body: child(&o, "body", false, d.block), Span: o.span()}
	case "spawn":
		o := d.fields(n, "body")
		return &Spawn{Body: child(&o, "body", false, d.block), Span: o.span()}
	case "lang_block":
		o := d.fields(n, "tool", "source")
		return &LangBlock{Tool: o.str("tool"), Source: o.str("source"), Span: o.span()}
	case "binary":
		o := d.fields(n, "op", "l", "r")
		return &Binary{Op: BinOp(enumIndex(binOpNames[:], o.enum("op", binOpNames[1:]...))),
			L: child(&o, "l", false, d.expr), R: child(&o, "r", false, d.expr), Span: o.span()}
	case "unary":
		o := d.fields(n, "op", "x")
		return &Unary{Op: UnaryOp(enumIndex(unaryOpNames[:], o.enum("op", unaryOpNames[1:]...))), X: child(&o, "x", false, d.expr), Span: o.span()}
	case "range":
		o := d.fields(n, "lo", "hi", "inclusive")
		return &Range{Lo: child(&o, "lo", false, d.expr), Hi: child(&o, "hi", false, d.expr),
			Inclusive: o.boolean("inclusive"), Span: o.span()}
	case "cmd":
		o := d.fields(n, "call")
		return &Cmd{Call: child(&o, "call", false, d.cmdCall), Span: o.span()}
	default:
		d.unknownKind("expression", kind)
		return nil
	}
}

// strPart is {"kind":"str_part","lit","x"}; it has no span of its own.
func (d *dec) strPart(n int32) StrPart {
	d.expectKind(n, "str_part")
	o := d.match(n, false, []string{"lit", "x"})
	return StrPart{Lit: o.str("lit"), X: child(&o, "x", true, d.expr)}
}

func (d *dec) recordField(n int32) *RecordField {
	d.expectKind(n, "record_field")
	o := d.fields(n, "key", "value")
	return &RecordField{Key: o.str("key"), Value: child(&o, "value", false, d.expr), Span: o.span()}
}

func (d *dec) withEntry(n int32) *WithEntry {
	d.expectKind(n, "with_entry")
	o := d.fields(n, "key", "value")
	return &WithEntry{Key: o.str("key"), Value: child(&o, "value", false, d.expr), Span: o.span()}
}

func (d *dec) matchArm(n int32) *MatchArm {
	d.expectKind(n, "match_arm")
	o := d.fields(n, "patterns", "guard", "body")
	a := &MatchArm{Patterns: elems(&o, "patterns", d.pattern)}
	if len(a.Patterns) == 0 {
		o.at("patterns")
		d.failf("a match arm needs at least one pattern")
	}
	a.Guard = child(&o, "guard", true, d.expr)
	a.Body = child(&o, "body", false, d.expr)
	a.Span = o.span()
	return a
}

func (d *dec) cmdCall(n int32) *CmdCall {
	d.expectKind(n, "cmd_call")
	o := d.fields(n, "env", "forced", "head", "args", "redirects", "background", "trailing")
	return &CmdCall{Env: elems(&o, "env", d.envPrefix), Forced: o.boolean("forced"),
		Head: child(&o, "head", false, d.cmdHead), Args: elems(&o, "args", d.cmdArg),
		Redirects: elems(&o, "redirects", d.redirect), Background: o.boolean("background"),
		Trailing: child(&o, "trailing", true, d.block), Span: o.span()}
}

// cmdHead is a command name: a word or a path.
func (d *dec) cmdHead(n int32) *CmdArg {
	a := d.cmdArg(n)
	if a.Kind != ArgWord && a.Kind != ArgPath {
		d.failKey("arg_kind", "a command head is a word or a path, got %q", a.Kind)
	}
	return a
}

func (d *dec) envPrefix(n int32) *EnvPrefix {
	d.expectKind(n, "env_prefix")
	o := d.fields(n, "name", "value")
	return &EnvPrefix{Name: o.str("name"), Value: child(&o, "value", false, d.cmdArg), Span: o.span()}
}

func (d *dec) redirect(n int32) *Redirect {
	d.expectKind(n, "redirect")
	o := d.fields(n, "redirect_kind", "target")
	return &Redirect{Kind: RedirectKind(enumIndex(redirectKindNames[:], o.enum("redirect_kind", redirectKindNames[1:]...))),
		Target: child(&o, "target", false, d.cmdArg), Span: o.span()}
}

// cmdArg decodes a command word. Only a long flag carries a value, and only
// str and expr words carry an expression (which a str word needs to be a
// string).
func (d *dec) cmdArg(n int32) *CmdArg {
	d.expectKind(n, "cmd_arg")
	o := d.fields(n, "arg_kind", "text", "name", "value", "x")
	kind := argKindOf(o.enum("arg_kind", argKindNames[1:]...))
	a := &CmdArg{Kind: kind, Text: o.str("text"), Name: o.str("name")}
	a.Value = child(&o, "value", true, d.cmdArg)
	if a.Value != nil && kind != ArgLongFlag {
		o.at("value")
		d.failf("only a long_flag argument has a value")
	}
	switch kind {
	case ArgStr:
		a.X = child(&o, "x", false, d.strExpr)
	case ArgExpr:
		a.X = child(&o, "x", false, d.expr)
	default:
		if !o.null(o.at("x")) {
			d.failf("only str and expr arguments have an expression")
		}
		d.pop()
	}
	a.Span = o.span()
	return a
}

// strExpr is the expression of a quoted command word: a str or str_interp.
func (d *dec) strExpr(n int32) Expr {
	switch k := d.kindOf(n); k {
	case "str", "str_interp":
		return d.expr(n)
	default:
		d.failKey("kind", "a str argument holds a str or str_interp, got %q", k)
		return nil
	}
}

func (d *dec) pattern(n int32) Pattern {
	switch kind := d.kindOf(n); kind {
	case "wildcard_pat":
		o := d.fields(n)
		return &WildcardPat{Span: o.span()}
	case "bind_pat":
		o := d.fields(n, "name")
		return &BindPat{Name: o.str("name"), Span: o.span()}
	case "lit_pat":
		o := d.fields(n, "value")
		return &LitPat{Value: child(&o, "value", false, d.expr), Span: o.span()}
	case "range_pat":
		o := d.fields(n, "lo", "hi", "inclusive")
		return &RangePat{Lo: o.int64("lo"), Hi: o.int64("hi"), Inclusive: o.boolean("inclusive"), Span: o.span()}
	case "type_pat":
		o := d.fields(n, "type", "binder")
		return &TypePat{Type: o.str("type"), Binder: o.str("binder"), Span: o.span()}
	case "record_pat":
		o := d.fields(n, "fields")
		return &RecordPat{Fields: elems(&o, "fields", d.recordPatField), Span: o.span()}
	case "list_pat":
		o := d.fields(n, "elems", "has_rest", "rest")
		return &ListPat{Elems: elems(&o, "elems", d.pattern), HasRest: o.boolean("has_rest"),
			Rest: o.str("rest"), Span: o.span()}
	default:
		d.unknownKind("pattern", kind)
		return nil
	}
}

func (d *dec) recordPatField(n int32) *RecordPatField {
	d.expectKind(n, "record_pat_field")
	o := d.fields(n, "key", "pat")
	return &RecordPatField{Key: o.str("key"), Pat: child(&o, "pat", true, d.pattern), Span: o.span()}
}

// argKindOf maps a stable arg_kind name to its ArgKind (0 when unknown).
func argKindOf(name string) ArgKind {
	for k, n := range argKindNames {
		if n == name && k > 0 {
			return ArgKind(k)
		}
	}
	return 0
}

// enumIndex returns the index of name in names (0 when absent).
func enumIndex(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return 0
}
