package syntax

import "strings"

// parseExpr parses a full expression (binary operators and postfix catch)
// where a bare identifier is a variable.
func (p *parser) parseExpr() Expr { return p.finishExpr(p.parseUnary()) }

// parseExprEOC parses a full expression in an expr-or-command position: a
// bare unbound identifier there starts a command.
func (p *parser) parseExprEOC() Expr { return p.finishExpr(p.parseOperandEOC()) }

// finishExpr continues an expression from its first operand.
func (p *parser) finishExpr(left Expr) Expr {
	return p.maybeCatch(p.binaryLoop(left, 1))
}

// parseOperandEOC parses one operand, dispatching to a command for path
// heads, `^head`, and identifiers that are not value-bound.
func (p *parser) parseOperandEOC() Expr { return p.parseOperandEOCTok(p.peek()) }

// parseOperandEOCTok is parseOperandEOC given t, the token p.peek() returns.
func (p *parser) parseOperandEOCTok(t token) Expr {
	if isPathHead(p.src, t.start) || t.kind == tCaret {
		p.pos = t.start
		return p.parseCommand()
	}
	if t.kind == tIdent && p.identStartsCommand(t) {
		p.pos = t.start
		return p.parseCommand()
	}
	return p.parseUnaryTok(t)
}

// identStartsCommand decides, for an identifier in an expr-or-command
// position, whether it heads a command.
func (p *parser) identStartsCommand(t token) bool {
	if p.envCommandAt(t.start) {
		return true
	}
	name := p.src[t.start:t.end]
	if name == "it" || name == "out" {
		if p.replOnly(name) {
			return false
		}
	}
	if t.end < len(p.src) {
		switch p.src[t.end] {
		case '.', '(', '[':
			return false
		case '?':
			if t.end+1 < len(p.src) && p.src[t.end+1] == '.' {
				return false
			}
		}
	}
	if isInterpreter(name) && p.langBlockAt(t.end) >= 0 {
		return false
	}
	if !p.ctx.noLambda && p.peekAt(t.end).kind == tFatArrow {
		return false
	}
	return !p.valueBound(name)
}

// isPathHead reports whether an explicit path (./x ../x /x ~/x ~) starts
// at pos.
func isPathHead(src string, pos int) bool {
	if pos >= len(src) {
		return false
	}
	rest := src[pos:]
	switch rest[0] {
	case '/':
		return true
	case '.':
		return len(rest) > 1 && (rest[1] == '/' || (rest[1] == '.' && len(rest) > 2 && rest[2] == '/'))
	case '~':
		return len(rest) == 1 || rest[1] == '/' || isWordStop(rest[1], false) || rest[1] == '}'
	}
	return false
}

// binaryPrec returns the binding power of a binary operator token (0 when
// the token is not one).
func binaryPrec(k tokKind) int {
	switch k {
	case tQQ:
		return 1
	case tOrOr:
		return 2
	case tAndAnd:
		return 3
	case tEq, tNe, tLt, tLe, tGt, tGe, kwIn:
		return 4
	case tDotDot, tDotDotEq:
		return 5
	case tPlus, tMinus:
		return 6
	case tStar, tSlash, tPercent:
		return 7
	}
	return 0
}

var binOps = [...]BinOp{
	tQQ: OpCoalesce, tOrOr: OpOr, tAndAnd: OpAnd, tEq: OpEq, tNe: OpNe,
	tLt: OpLt, tLe: OpLe, tGt: OpGt, tGe: OpGe, kwIn: OpIn, tPlus: OpAdd,
	tMinus: OpSub, tStar: OpMul, tSlash: OpDiv, tPercent: OpRem,
}

// binaryLoop is the Pratt loop over binary operators of power >= minPrec.
// p.h holds left's height on entry and the result's on return.
func (p *parser) binaryLoop(left Expr, minPrec int) Expr {
	hl := p.h
	for {
		t := p.peek()
		switch t.kind {
		case tPipe:
			p.failTok(pipeError(t.start), "", "")
		case tAmp:
			if _, ok := left.(*Block); ok && p.endsAfterAmp(t) {
				p.h = hl
				return left // `{ … } &`: see backgroundBlock
			}
			p.failAfterStmt(t)
		case tIllegal:
			p.failTok(t, "", "")
		}
		prec := binaryPrec(t.kind)
		if prec == 0 || prec < minPrec {
			p.h = hl
			return left
		}
		p.pos = t.end
		p.skipNL()
		var right Expr
		if t.kind == tAndAnd || t.kind == tOrOr {
			right = p.binaryLoop(p.parseOperandEOC(), prec+1)
		} else {
			right = p.binaryLoop(p.parseUnary(), prec+1)
		}
		span := mkSpan(int(left.Pos().Start), int(right.Pos().End))
		p.node(max(hl, p.h), span)
		hl = p.h
		switch t.kind {
		case tDotDot, tDotDotEq:
			left = p.newRange(Range{Lo: left, Hi: right, Inclusive: t.kind == tDotDotEq, Span: span})
		default:
			left = p.newBinary(Binary{Op: binOps[t.kind], L: left, R: right, Span: span})
		}
		if prec == 4 {
			if n := p.peek(); binaryPrec(n.kind) == 4 {
				p.fail(mkSpan(n.start, n.end), "comparison operators do not chain",
					"write `a < b && b < c`", false)
			}
		}
	}
}

func (p *parser) parseUnary() Expr { return p.parseUnaryTok(p.peek()) }

// parseUnaryTok is parseUnary given t, the token p.peek() returns.
// The depth is restored without a defer: a parse error unwinds to Parse,
// which discards the parser's state.
func (p *parser) parseUnaryTok(t token) Expr {
	p.enter(t)
	var x Expr
	switch t.kind {
	case tBang, tMinus:
		p.pos = t.end
		operand := p.parseUnary()
		op := OpNot
		if t.kind == tMinus {
			op = OpNeg
		}
		sp := mkSpan(t.start, int(operand.Pos().End))
		p.node(p.h, sp)
		x = p.newUnary(Unary{Op: op, X: operand, Span: sp})
	default:
		x = p.parsePostfix(p.parsePrimaryTok(t), t.start)
	}
	p.leave()
	return x
}

// parsePostfix applies field, method, index and call suffixes to x, whose
// source starts at start (which may precede x's own span, e.g. a paren).
// p.h holds x's height on entry and the result's on return.
func (p *parser) parsePostfix(x Expr, start int) Expr {
	src := p.src
	hx := p.h
	for {
		pos := p.pos
		if pos >= len(src) {
			p.h = hx
			return x
		}
		switch c := src[pos]; {
		case c == '.' || (c == '?' && pos+1 < len(src) && src[pos+1] == '.'):
			opt := c == '?'
			nameAt := pos + 1
			if opt {
				nameAt++
			}
			ok, _ := identStartAt(src, nameAt)
			if !ok {
				if opt {
					p.fail(mkSpan(pos, nameAt), "expected a field name after `?.`", "write x?.name", nameAt >= len(src))
				}
				p.h = hx
				return x
			}
			end := scanIdent(src, nameAt)
			name := src[nameAt:end]
			p.pos = end
			if end < len(src) && src[end] == '(' {
				args := p.parseCallArgs()
				hc := max(hx, p.h)
				m := p.newMethodCall(MethodCall{X: x, Name: name, Args: args, Optional: opt, Span: mkSpan(start, p.pos), NameSpan: mkSpan(nameAt, end)})
				if tb := p.trailingBlock(); tb != nil {
					m.Trailing, m.Span.End = tb, tb.Span.End
				}
				p.node(max(hc, p.h), m.Span)
				hx = p.h
				x = m
				continue
			}
			if tb := p.trailingBlock(); tb != nil {
				x = p.newMethodCall(MethodCall{X: x, Name: name, Optional: opt, Trailing: tb, Span: mkSpan(start, int(tb.Span.End)), NameSpan: mkSpan(nameAt, end)})
				p.node(max(hx, p.h), x.Pos())
				hx = p.h
				continue
			}
			sp := mkSpan(start, end)
			p.node(hx, sp)
			hx = p.h
			x = p.newField(Field{X: x, Name: name, Optional: opt, Span: sp})
		case c == '(':
			args := p.parseCallArgs()
			hc := max(hx, p.h)
			call := p.newCall(Call{Fn: x, Args: args, Span: mkSpan(start, p.pos)})
			if tb := p.trailingBlock(); tb != nil {
				call.Trailing, call.Span.End = tb, tb.Span.End
			}
			p.node(max(hc, p.h), call.Span)
			hx = p.h
			x = call
		case c == '[':
			open := p.peek()
			p.pos = open.end
			saved := p.ctx
			p.ctx = pctx{ignoreNL: true}
			idx := p.parseExpr()
			closeTok := p.expect(tRBracket, "`]`", "close the index with `]`")
			p.ctx = saved
			sp := mkSpan(start, closeTok.end)
			p.node(max(hx, p.h), sp)
			hx = p.h
			x = p.newIndex(Index{X: x, Index: idx, Span: sp})
		default:
			if at := p.dotContinuation(pos); at >= 0 {
				p.pos = at
				continue
			}
			p.h = hx
			return x
		}
	}
}

// dotContinuation returns the offset of a `.name` or `?.name` that begins a
// following line and so continues the postfix chain, or -1.
func (p *parser) dotContinuation(pos int) int {
	src := p.src
	sawNL := false
	for pos < len(src) {
		switch src[pos] {
		case ' ', '\t', '\r':
			pos++
		case '\n':
			sawNL = true
			pos++
		case '#':
			for pos < len(src) && src[pos] != '\n' {
				pos++
			}
		case '.':
			if !sawNL {
				return -1
			}
			if ok, _ := identStartAt(src, pos+1); ok {
				return pos
			}
			return -1
		case '?':
			if sawNL && pos+2 < len(src) && src[pos+1] == '.' {
				if ok, _ := identStartAt(src, pos+2); ok {
					return pos
				}
			}
			return -1
		default:
			return -1
		}
	}
	return -1
}

// trailingBlock parses a `{ ... }` block argument following a call on the
// same line, unless a construct header owns the brace. p.h is the block's
// height, 0 when there is none.
func (p *parser) trailingBlock() *Block {
	p.h = 0
	if p.ctx.noTrailing || !braceMayFollow(p.src, p.pos) {
		return nil
	}
	if t := p.peekAt(p.pos); t.kind != tLBrace {
		return nil
	}
	return p.parseBlock()
}

// braceMayFollow is a byte-level precheck for a `{` token at pos: it
// reports false when the first byte after spaces cannot lead to one, sparing
// a lookahead token that nothing else needs (the `.` of a method chain).
func braceMayFollow(src string, pos int) bool {
	for pos < len(src) && (src[pos] == ' ' || src[pos] == '\t' || src[pos] == '\r') {
		pos++
	}
	return pos < len(src) && (src[pos] == '{' || src[pos] == '\\')
}

// parseCallArgs parses `( args )` with p.pos at the `(`; p.h is the
// tallest argument's height.
func (p *parser) parseCallArgs() []*Arg {
	p.pos++
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	args := &p.ar.argSeq
	mark := args.mark()
	h := 0
	for {
		t := p.peek()
		if t.kind == tRParen {
			p.pos = t.end
			break
		}
		args.push(p.parseArg(t))
		h = max(h, p.h)
		t = p.peek()
		if t.kind == tComma {
			p.pos = t.end
			continue
		}
		if t.kind == tRParen {
			p.pos = t.end
			break
		}
		if t.kind == tPipe {
			t = pipeError(t.start)
		}
		p.failSep(t, "expected `,` or `)` in arguments, found "+p.describe(t), "arguments", "call", "`)`")
	}
	p.ctx = saved
	p.h = h
	return args.take(mark)
}

func (p *parser) parseArg(t token) *Arg {
	if name, colon, ok := p.flagNamedArg(t.start); ok {
		// gs(--short: true) is gs(short: true): the flag spelling of a
		// named argument, as a command would write it.
		p.pos = colon + 1
		v := p.parseArgValue()
		sp := mkSpan(t.start, int(v.Pos().End))
		p.node(p.h, sp)
		return p.newArg(Arg{Name: name, Value: v, Span: sp})
	}
	if t.kind.isName() {
		if c := p.peekAt(t.end); c.kind == tColon && (c.end >= len(p.src) || p.src[c.end] != ':') {
			p.pos = c.end
			v := p.parseArgValue()
			sp := mkSpan(t.start, int(v.Pos().End))
			p.node(p.h, sp)
			return p.newArg(Arg{Name: p.text(t), Value: v, Span: sp})
		}
	}
	if t.kind == tDot {
		if ok, _ := identStartAt(p.src, t.end); ok {
			lam := p.parseImplicitLambda(t)
			p.node(p.h, lam.Span)
			return p.newArg(Arg{Value: lam, Span: lam.Span})
		}
	}
	if isPathHead(p.src, t.start) {
		// A whole argument that is an explicit path is the path, as in
		// watch(./src); a path with arguments after it is a command.
		if end, ok := pathWordEnd(p.src, t.start); ok {
			if n := p.peekAt(end); n.kind == tComma || n.kind == tRParen {
				x := p.pathLit(t.start, end)
				return p.newArg(Arg{Value: x, Span: x.Pos()})
			}
		}
	}
	p.ctx.inArgs = true
	v := p.finishExpr(p.parseOperandEOCTok(t))
	p.ctx.inArgs = false
	p.node(p.h, v.Pos())
	return p.newArg(Arg{Value: v, Span: v.Pos()})
}

// flagNamedArg recognises `--name:` at pos (not `--name::`), returning the
// name and the colon's offset.
func (p *parser) flagNamedArg(pos int) (name string, colon int, ok bool) {
	if !strings.HasPrefix(p.src[pos:], "--") {
		return "", 0, false
	}
	if ok, _ := identStartAt(p.src, pos+2); !ok {
		return "", 0, false
	}
	end := scanIdent(p.src, pos+2)
	if end >= len(p.src) || p.src[end] != ':' || (end+1 < len(p.src) && p.src[end+1] == ':') {
		return "", 0, false
	}
	return p.src[pos+2 : end], end, true
}

func (p *parser) parseArgValue() Expr {
	p.ctx.inArgs = true
	v := p.parseExprEOC()
	p.ctx.inArgs = false
	return v
}

// parseImplicitLambda desugars the `.field...` item shorthand, which must
// form a complete call argument.
func (p *parser) parseImplicitLambda(dot token) *Lambda {
	at := mkSpan(dot.start, dot.start)
	p.pos = dot.start
	p.leaf(at)
	body := p.finishExpr(p.parsePostfix(p.newVar(Var{Name: ImplicitParam, Span: at}), dot.start))
	hb := p.h
	if n := p.peek(); n.kind != tComma && n.kind != tRParen {
		p.failTok(n, "the `.name` shorthand must be a complete argument",
			"name the parameter instead: x => ...")
	}
	ps := &p.ar.paramSeq
	mark := ps.mark()
	p.leaf(at)
	ps.push(p.newParam(Param{Name: ImplicitParam, Span: at}))
	sp := mkSpan(dot.start, int(body.Pos().End))
	p.node(max(1, hb), sp)
	return p.newLambda(Lambda{Params: ps.take(mark), Body: body, Implicit: true, Span: sp})
}

// maybeCatch parses a postfix `catch NAME? handler` after x, possibly on a
// following line. p.h holds x's height on entry and the result's on
// return.
func (p *parser) maybeCatch(x Expr) Expr {
	if !p.catchMayFollow() {
		return x
	}
	t := p.peekAt(p.pos)
	if t.kind == tNewline {
		t = p.peekPastNL(p.pos)
	}
	if t.kind != kwCatch {
		return x
	}
	hx := p.h
	p.pos = t.end
	binder := ""
	b := p.peekAt(p.pos)
	if b.kind == tIdent {
		after := p.peekAt(b.end)
		glued := b.end < len(p.src) && (p.src[b.end] == '.' || p.src[b.end] == '(' || p.src[b.end] == '[' || p.src[b.end] == '?')
		if after.kind == tLBrace || (!glued && !endsExpr(after.kind) && binaryPrec(after.kind) == 0 && after.kind != tFatArrow && after.kind != kwCatch) {
			binder = p.text(b)
			p.pos = b.end
		}
	}
	p.push()
	p.bind(binder, bindValue)
	var handler Expr
	if h := p.peek(); h.kind == tLBrace {
		handler = p.parseBlock()
	} else {
		handler = p.parseExpr()
	}
	p.pop()
	if binder == "_" {
		binder = ""
	}
	sp := mkSpan(int(x.Pos().Start), int(handler.Pos().End))
	p.node(max(hx, p.h), sp)
	return p.newCatch(Catch{X: x, Binder: binder, Handler: handler, Span: sp})
}

// catchMayFollow is a byte-level precheck for maybeCatch: it reports false
// when the first thing after spaces, newlines and comments cannot start the
// keyword catch, sparing the token lookahead past the newlines.
func (p *parser) catchMayFollow() bool {
	src := p.src
	for i := p.pos; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case 'c':
			return true
		case '\\':
			return true // a line continuation: let the lexer decide
		default:
			return false
		}
	}
	return false
}
