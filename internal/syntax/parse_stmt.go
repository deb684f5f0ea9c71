package syntax

import "strings"

// parseStmts parses statements up to EOF, or up to a `}` when inBlock;
// p.h is the tallest statement's height.
func (p *parser) parseStmts(inBlock bool) []Stmt {
	stmts := &p.ar.stmtSeq
	mark := stmts.mark()
	h := 0
	for {
		t := p.peek()
		for t.kind == tNewline || t.kind == tSemi {
			p.pos = t.end
			t = p.peek()
		}
		if t.kind == tEOF {
			if inBlock {
				p.fail(mkSpan(t.start, t.end), "expected `}` to close the block, found EOF",
					"the source ends before the block is closed; add `}`", true)
			}
			p.h = h
			return stmts.take(mark)
		}
		if t.kind == tRBrace {
			if inBlock {
				p.h = h
				return stmts.take(mark)
			}
			p.failTok(t, "unexpected `}`", "this `}` closes nothing; remove it or add the matching `{`")
		}
		stmts.push(p.parseStmt(t))
		h = max(h, p.h)
		t = p.peek()
		switch t.kind {
		case tNewline, tSemi:
			p.pos = t.end
		case tEOF:
		case tRBrace:
			if !inBlock {
				p.failTok(t, "unexpected `}`", "this `}` closes nothing; remove it or add the matching `{`")
			}
		default:
			p.failAfterStmt(t)
		}
	}
}

// failAfterStmt reports a token that cannot continue or end a statement.
func (p *parser) failAfterStmt(t token) {
	switch t.kind {
	case tPipe:
		t = pipeError(t.start)
	case tAmp:
		p.fail(mkSpan(t.start, t.end), "`&` is not an operator",
			"backgrounding with & is command syntax; logical and is &&", false)
	case tRParen:
		p.failTok(t, "unexpected `)`", "this `)` closes nothing; remove it or add the matching `(`")
	case tRBracket:
		p.failTok(t, "unexpected `]`", "this `]` closes nothing; remove it or add the matching `[`")
	case tAssign:
		p.failTok(t, "unexpected `=`", "assign with `name = value` as a statement; compare with ==")
	}
	p.failTok(t, "unexpected "+p.describe(t)+" after statement",
		"end the statement with a newline or `;` before the next one")
}

// parseStmt parses the statement that starts with t, the token p.peek()
// returns.
func (p *parser) parseStmt(t token) Stmt {
	p.enter(t)
	defer p.leave()
	switch t.kind {
	case kwLet, kwVar:
		return p.parseLet(t, t.start, false)
	case kwExport:
		p.pos = t.end
		n := p.peek()
		switch n.kind {
		case kwLet, kwVar:
			return p.parseLet(n, t.start, true)
		case kwFn:
			return p.parseFn(n, t.start, true)
		}
		p.failTok(n, "expected let, var or fn after export, found "+p.describe(n),
			"write export let name = value, or export fn name(...) { ... }")
	case kwFn:
		return p.parseFn(t, t.start, false)
	case kwAlias:
		return p.parseAlias(t)
	case kwUse:
		return p.parseUse(t)
	case kwReturn:
		p.pos = t.end
		n := p.peek()
		if endsExpr(n.kind) {
			sp := mkSpan(t.start, t.end)
			p.leaf(sp)
			return p.newReturnStmt(ReturnStmt{Span: sp})
		}
		x := p.parseExpr()
		sp := mkSpan(t.start, int(x.Pos().End))
		p.node(p.h, sp)
		return p.newReturnStmt(ReturnStmt{Value: x, Span: sp})
	case kwBreak:
		p.pos = t.end
		sp := mkSpan(t.start, t.end)
		p.leaf(sp)
		return &BreakStmt{Span: sp}
	case kwContinue:
		p.pos = t.end
		sp := mkSpan(t.start, t.end)
		p.leaf(sp)
		return &ContinueStmt{Span: sp}
	case kwFor:
		return p.parseFor(t)
	case kwWhile:
		p.pos = t.end
		cond := p.parseHeader()
		h := p.h
		body := p.parseBlock()
		sp := mkSpan(t.start, int(body.Span.End))
		p.node(max(h, p.h), sp)
		return &WhileStmt{Cond: cond, Body: body, Span: sp}
	}
	return p.parseHeadStmt(t)
}

// endsExpr reports whether a token kind cannot start an expression operand
// and so ends an optional one.
func endsExpr(k tokKind) bool {
	switch k {
	case tNewline, tSemi, tEOF, tRBrace, tRParen, tRBracket, tComma:
		return true
	}
	return false
}

// parseHeadStmt applies the statement-dispatch rules to a statement that
// does not start with a statement keyword.
func (p *parser) parseHeadStmt(t token) Stmt {
	if t.kind == tDot && !isPathHead(p.src, t.start) {
		if p.opts.REPL {
			if ok, _ := identStartAt(p.src, t.end); ok {
				seed := p.newVar(Var{Name: "it", Span: mkSpan(t.start, t.start)})
				p.leaf(seed.Span)
				p.pos = t.start
				x := p.finishExpr(p.parsePostfix(seed, t.start))
				p.node(p.h, x.Pos())
				return p.newExprStmt(ExprStmt{X: x, Span: x.Pos()})
			}
		}
		p.failTok(t, "a leading `.` has no receiver here",
			"write x.name, or use .name as a complete call argument such as xs.map(.name)")
	}
	if t.kind == tIdent && !p.envCommandAt(t.start) {
		next := p.peekAt(t.end)
		glued := t.end < len(p.src) && strings.IndexByte(".[(?", p.src[t.end]) >= 0
		if isAssignOp(next.kind) || (glued && !p.identStartsCommand(t)) {
			lhs := p.parsePostfix(p.parsePrimary(), t.start)
			op := p.peek()
			if isAssignOp(op.kind) {
				return p.finishAssign(lhs, op)
			}
			x := p.finishExpr(lhs)
			sp := mkSpan(t.start, int(x.Pos().End))
			p.node(p.h, sp)
			return p.newExprStmt(ExprStmt{X: x, Span: sp})
		}
	}
	x := p.backgroundBlock(p.parseExprEOC())
	p.node(p.h, x.Pos())
	return p.newExprStmt(ExprStmt{X: x, Span: x.Pos()})
}

// endsAfterAmp reports whether the `&` token t ends its statement.
func (p *parser) endsAfterAmp(t token) bool {
	switch p.peekAt(t.end).kind {
	case tNewline, tSemi, tEOF, tRParen, tRBrace:
		return true
	}
	return false
}

// backgroundBlock reads a trailing `&` after a block, `{ … } &`, which
// starts the block as a background task: it is spawn { … } (see Spawn).
// Anything else is returned as it is.
func (p *parser) backgroundBlock(x Expr) Expr {
	b, ok := x.(*Block)
	if !ok {
		return x
	}
	t := p.peek()
	if t.kind != tAmp || !p.endsAfterAmp(t) {
		return x // the statement's end reports a stray `&`
	}
	p.pos = t.end
	sp := mkSpan(int(b.Span.Start), t.end)
	p.node(p.h, sp)
	return &Spawn{Body: b, Span: sp}
}

func isAssignOp(k tokKind) bool {
	switch k {
	case tAssign, tPlusEq, tMinusEq, tStarEq, tSlashEq:
		return true
	}
	return false
}

// finishAssign parses an assignment to lhs, whose height is in p.h.
func (p *parser) finishAssign(lhs Expr, op token) Stmt {
	hl := p.h
	switch l := lhs.(type) {
	case *Var:
	case *Field:
		if l.Optional {
			p.fail(l.Span, "cannot assign through `?.`", "assign through `.`: write x.name = value", false)
		}
	case *Index:
	default:
		p.fail(lhs.Pos(), "cannot assign to this expression",
			"an assignment target is a name, a field (x.f, env.NAME) or an index (xs[0])", false)
	}
	p.pos = op.end
	p.skipNL()
	v := p.parseExprEOC()
	var o AssignOp
	switch op.kind {
	case tAssign:
		o = AssignSet
	case tPlusEq:
		o = AssignAdd
	case tMinusEq:
		o = AssignSub
	case tStarEq:
		o = AssignMul
	case tSlashEq:
		o = AssignDiv
	}
	sp := mkSpan(int(lhs.Pos().Start), int(v.Pos().End))
	p.node(max(hl, p.h), sp)
	return p.newAssignStmt(AssignStmt{Target: lhs, Op: o, Value: v, Span: sp})
}

func (p *parser) parseLet(kw token, start int, exported bool) Stmt {
	p.pos = kw.end
	n := p.peek()
	if n.kind == tLBracket || n.kind == tLBrace {
		p.failTok(n, "binding destructuring is not supported",
			"bind one name and index it, or destructure with a match pattern")
	}
	if n.kind != tIdent {
		p.failTok(n, "expected a name after "+kw.kind.String()+", found "+p.describe(n),
			"write "+kw.kind.String()+" name = value")
	}
	name := p.text(n)
	p.pos = n.end
	var typ *TypeExpr
	h := 0
	a := p.peek()
	if a.kind == tColon {
		p.pos = a.end
		typ = p.parseType()
		h = p.h
		a = p.peek()
	}
	if a.kind != tAssign {
		p.failTok(a, "expected `=`, found "+p.describe(a), "a binding needs a value: write "+kw.kind.String()+" "+name+" = value")
	}
	p.pos = a.end
	p.skipNL()
	init := p.backgroundBlock(p.parseExprEOC())
	p.bind(name, bindValue)
	sp := mkSpan(start, int(init.Pos().End))
	p.node(max(h, p.h), sp)
	return p.newLetStmt(LetStmt{Name: name, Type: typ, Init: init, Mutable: kw.kind == kwVar,
		Exported: exported, Span: sp})
}

func (p *parser) parseFn(kw token, start int, exported bool) Stmt {
	p.pos = kw.end
	n := p.peek()
	if n.kind != tIdent {
		p.failTok(n, "expected a function name, found "+p.describe(n),
			"write fn name(params) { body }; an anonymous function is x => ...")
	}
	name := p.text(n)
	p.pos = n.end
	p.bind(name, bindCommand)
	if c := p.peek(); c.kind != tLParen {
		p.failTok(c, "expected `(` after fn "+name+", found "+p.describe(c),
			"declare the parameters in parentheses: fn "+name+"() { ... }")
	}
	params, rest := p.parseParams()
	h := p.h
	var ret *TypeExpr
	if a := p.peek(); a.kind == tArrow {
		p.pos = a.end
		ret = p.parseType()
		h = max(h, p.h)
	}
	p.push()
	for _, prm := range params {
		p.bind(prm.Name, bindValue)
	}
	if rest != nil {
		p.bind(rest.Name, bindValue)
	}
	body := p.parseBlock()
	p.pop()
	decl := p.newFnDecl(FnDecl{Name: name, Params: params, Rest: rest, Return: ret, Body: body,
		Doc: docBefore(p.src, start), Exported: exported, Span: mkSpan(start, int(body.Span.End))})
	p.node(max(h, p.h), decl.Span)
	p.node(p.h, decl.Span)
	return p.newFnStmt(FnStmt{Decl: decl, Span: decl.Span})
}

// parseParams parses `( params )` of a function declaration; p.h is the
// tallest parameter's height.
func (p *parser) parseParams() (params []*Param, rest *Param) {
	p.expect(tLParen, "`(`", "declare the parameters in parentheses")
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	ps := &p.ar.paramSeq
	mark := ps.mark()
	h := 0
	for {
		t := p.peek()
		if t.kind == tRParen {
			p.pos = t.end
			break
		}
		isRest := false
		if t.kind == tEllipsis {
			isRest = true
			p.pos = t.end
			t = p.peek()
		}
		if t.kind != tIdent {
			p.failTok(t, "expected a parameter name, found "+p.describe(t),
				"a parameter is name, name: type, or name = default")
		}
		prm := p.newParam(Param{Name: p.text(t), Span: mkSpan(t.start, t.end)})
		p.pos = t.end
		hp := 0
		if c := p.peek(); c.kind == tColon {
			p.pos = c.end
			prm.Type = p.parseType()
			prm.Span.End = prm.Type.Span.End
			hp = p.h
		}
		if !isRest {
			if e := p.peek(); e.kind == tAssign {
				p.pos = e.end
				prm.Default = p.parseExpr()
				prm.Span.End = prm.Default.Pos().End
				hp = max(hp, p.h)
			}
		}
		p.node(hp, prm.Span)
		h = max(h, p.h)
		if isRest {
			if rest != nil {
				p.fail(prm.Span, "only one ...rest parameter is allowed",
					"one ...rest collects all the remaining arguments", false)
			}
			rest = prm
		} else {
			if rest != nil {
				p.fail(prm.Span, "the ...rest parameter must be last",
					"move ...rest after the other parameters", false)
			}
			ps.push(prm)
		}
		t = p.peek()
		if t.kind == tComma {
			p.pos = t.end
			continue
		}
		if t.kind != tRParen {
			p.failSep(t, "expected `,` or `)` in parameters, found "+p.describe(t), "parameters", "parameter list", "`)`")
		}
	}
	p.ctx = saved
	p.h = h
	return ps.take(mark), rest
}

func (p *parser) parseAlias(kw token) Stmt {
	p.pos = kw.end
	n := p.peek()
	if n.kind != tIdent {
		p.failTok(n, "expected an alias name, found "+p.describe(n), "write alias name = command args...")
	}
	name := p.text(n)
	p.pos = n.end
	if a := p.peek(); a.kind != tAssign {
		p.failTok(a, "expected `=`, found "+p.describe(a), "write alias "+name+" = command args...")
	}
	p.expect(tAssign, "`=`", "")
	c := p.parseCommand()
	p.bind(name, bindCommand)
	sp := mkSpan(kw.start, int(c.Span.End))
	p.node(p.h-1, sp) // the alias holds the command's call, not the command
	return &AliasStmt{Name: name, Target: c.Call, Span: sp}
}

func (p *parser) parseUse(kw token) Stmt {
	t := lex(p.src, kw.end, cmdMode)
	if t.kind != tWord && t.kind != tStr {
		p.failTok(t, "expected a module path after use, found "+p.describe(t), "write use ./path/to/module")
	}
	var path string
	if t.kind == tStr {
		s, ok := p.parseStringTok(t).(*StrLit)
		if !ok {
			p.fail(mkSpan(t.start, t.end), "a module path cannot interpolate",
				"write the path literally, as in use ./lib/util", false)
		}
		path = s.Value
	} else {
		path = wordText(p.src[t.start:t.end], t.flags)
	}
	p.pos = t.end
	end, as := t.end, ""
	if a := p.peek(); a.kind == tIdent && p.text(a) == "as" {
		n := p.peekAt(a.end)
		if n.kind != tIdent && !n.kind.isName() {
			p.failTok(n, "expected a name after `as`, found "+p.describe(n), "write use ./lib/report as reports")
		}
		as, end = p.text(n), n.end
		p.pos = n.end
	}
	name := as
	if name == "" {
		name = moduleName(path)
	}
	p.bind(name, bindValue)
	sp := mkSpan(kw.start, end)
	p.leaf(sp)
	return &UseStmt{Path: path, As: as, Span: sp}
}

// moduleName is the binding a `use` introduces: the last path element
// without its extension.
func moduleName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '.'); i > 0 {
		path = path[:i]
	}
	return path
}

func (p *parser) parseFor(kw token) Stmt {
	p.pos = kw.end
	n := p.peek()
	if n.kind == tLBracket || n.kind == tLBrace {
		p.failTok(n, "a for loop binds a single name or _",
			"write `for pair in xs { ... }` and index the item")
	}
	if n.kind != tIdent {
		p.failTok(n, "expected a loop variable, found "+p.describe(n), "write for name in items { ... }")
	}
	name := p.text(n)
	p.pos = n.end
	if a := p.peek(); a.kind != kwIn {
		p.failTok(a, "expected `in`, found "+p.describe(a), "write for "+name+" in items { ... }")
	}
	p.expect(kwIn, "`in`", "")
	iter := p.parseHeader()
	h := p.h
	p.push()
	p.bind(name, bindValue)
	body := p.parseBlock()
	p.pop()
	sp := mkSpan(kw.start, int(body.Span.End))
	p.node(max(h, p.h), sp)
	return p.newForStmt(ForStmt{Var: name, Iter: iter, Body: body, Span: sp})
}

// parseHeader parses a construct header expression, where `{` starts the
// construct's body rather than a trailing block.
func (p *parser) parseHeader() Expr {
	saved := p.ctx
	p.ctx.noTrailing = true
	p.ctx.noLambda = false
	x := p.parseExpr()
	p.ctx = saved
	return x
}

// parseBlock parses `{ statements }` in a fresh scope.
func (p *parser) parseBlock() *Block {
	open := p.peek()
	if open.kind != tLBrace {
		p.failTok(open, "expected `{`, found "+p.describe(open), "write the body in braces: { ... }")
	}
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{}
	p.push()
	stmts := p.parseStmts(true)
	p.pop()
	closeTok := p.expect(tRBrace, "`}`", "close the block with `}`")
	p.ctx = saved
	sp := mkSpan(open.start, closeTok.end)
	p.node(p.h, sp)
	return p.newBlock(Block{Stmts: stmts, Span: sp})
}

// docBefore collects the `#` comment lines directly above offset start.
func docBefore(src string, start int) string {
	ls := strings.LastIndexByte(src[:start], '\n') + 1
	if strings.TrimSpace(src[ls:start]) != "" {
		return ""
	}
	var lines []string
	end := ls
	for end > 0 {
		prev := strings.LastIndexByte(src[:end-1], '\n') + 1
		line := strings.TrimSpace(src[prev : end-1])
		if !strings.HasPrefix(line, "#") {
			break
		}
		line = strings.TrimPrefix(line[1:], " ")
		lines = append(lines, line)
		end = prev
	}
	if len(lines) == 0 {
		return ""
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return strings.Join(lines, "\n")
}
