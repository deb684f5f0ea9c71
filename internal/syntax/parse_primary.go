package syntax

import "math"

func (p *parser) parsePrimary() Expr { return p.parsePrimaryTok(p.peek()) }

// parsePrimaryTok is parsePrimary given t, the token p.peek() returns.
func (p *parser) parsePrimaryTok(t token) Expr {
	if isPathHead(p.src, t.start) {
		if end, ok := pathWordEnd(p.src, t.start); ok {
			return p.pathLit(t.start, end)
		}
	}
	sp := mkSpan(t.start, t.end)
	switch t.kind {
	case tInt:
		p.pos = t.end
		v, ok := parseIntText(p.text(t))
		if !ok {
			p.fail(sp, "integer literal `"+p.text(t)+"` is out of range", "integers are 64-bit signed", false)
		}
		p.leaf(sp)
		return p.newIntLit(IntLit{Value: v, Span: sp})
	case tFloat:
		p.pos = t.end
		v, ok := parseFloatText(p.text(t))
		if !ok {
			p.fail(sp, "float literal `"+p.text(t)+"` is out of range", "floats are 64-bit, up to about 1.8e308", false)
		}
		p.leaf(sp)
		return p.newFloatLit(FloatLit{Value: v, Span: sp})
	case tSize:
		p.pos = t.end
		num, unit := splitUnit(p.text(t))
		mult, _ := sizeUnit(unit)
		v, ok := quantity(num, mult)
		if !ok {
			p.fail(sp, "size literal `"+p.text(t)+"` is out of range", "a size is a 64-bit byte count (under 8 EiB)", false)
		}
		p.leaf(sp)
		return p.newSizeLit(SizeLit{Bytes: v, Span: sp})
	case tDuration:
		p.pos = t.end
		num, unit := splitUnit(p.text(t))
		mult, _ := durationUnit(unit)
		v, ok := quantity(num, mult)
		if !ok {
			// Beyond ±292 years: saturate, so arithmetic on the literal
			// reports the runtime overflow the language specifies.
			v = math.MaxInt64
		}
		p.leaf(sp)
		return p.newDurationLit(DurationLit{Nanos: v, Span: sp})
	case tTime:
		p.pos = t.end
		v, secs, ok := parseTimeText(p.text(t))
		if !ok {
			p.fail(sp, "invalid time of day `"+p.text(t)+"`", "write 09:30, 23:15:45, 10:00am or 7:05pm", false)
		}
		p.leaf(sp)
		return &TimeLit{Nanos: v, HasSeconds: secs, Span: sp}
	case tStr:
		return p.parseStringTok(t)
	case tDateTime:
		p.pos = t.end
		p.leaf(sp)
		return &DateTimeLit{Text: p.src[t.start+2 : t.end-1], Span: sp}
	case tRegex:
		p.pos = t.end
		p.leaf(sp)
		return &RegexLit{Pattern: p.src[t.start+3 : t.end-1], Span: sp}
	case kwTrue, kwFalse:
		p.pos = t.end
		p.leaf(sp)
		return p.newBoolLit(BoolLit{Value: t.kind == kwTrue, Span: sp})
	case kwNull:
		p.pos = t.end
		p.leaf(sp)
		return p.newNullLit(NullLit{Span: sp})
	case tIdent:
		return p.parseIdentPrimary(t)
	case tLParen:
		return p.parseParenOrLambda(t)
	case tLBracket:
		return p.parseList(t)
	case tLBrace:
		return p.parseBraceExpr(t)
	case kwIf:
		return p.parseIf(t)
	case kwMatch:
		return p.parseMatch(t)
	case kwTry:
		return p.parseTry(t)
	case kwWith:
		return p.parseWith(t)
	case kwSpawn:
		p.pos = t.end
		body := p.parseBlock()
		sp := mkSpan(t.start, int(body.Span.End))
		p.node(p.h, sp)
		return &Spawn{Body: body, Span: sp}
	case tDot:
		p.failTok(t, "a leading `.` has no receiver here",
			"write x.name, or use .name as a complete call argument such as xs.map(.name)")
	case tPipe:
		p.failTok(pipeError(t.start), "", "")
	}
	if t.kind == tEOF {
		p.fail(mkSpan(t.start, t.end), "expected expression, found EOF",
			"the source ends where an expression is expected; finish the expression", true)
	}
	p.failTok(t, "expected expression, found "+p.describe(t),
		"write a value here: a literal, a name, a call, [list], {record} or (command)")
	return nil
}

func (p *parser) parseIdentPrimary(t token) Expr {
	name := p.text(t)
	if isInterpreter(name) {
		if lb := p.parseLangBlock(t); lb != nil {
			return lb
		}
	}
	if !p.ctx.noLambda {
		if a := p.peekAt(t.end); a.kind == tFatArrow {
			ps := &p.ar.paramSeq
			mark := ps.mark()
			sp := mkSpan(t.start, t.end)
			p.leaf(sp)
			ps.push(p.newParam(Param{Name: name, Span: sp}))
			p.pos = a.end
			return p.finishLambda(ps.take(mark), 1, t.start)
		}
	}
	p.pos = t.end
	return p.makeVar(name, mkSpan(t.start, t.end))
}

func (p *parser) makeVar(name string, sp Span) *Var {
	if p.replOnly(name) {
		p.fail(sp, "`"+name+"` is REPL-only: it names the previous interactive result",
			"bind the value with let; reach a program named "+name+" with ^"+name, false)
	}
	p.leaf(sp)
	return p.newVar(Var{Name: name, Span: sp})
}

// finishLambda parses a lambda body after `=>` with params bound; hp is the
// tallest parameter's height.
func (p *parser) finishLambda(params []*Param, hp, start int) *Lambda {
	p.skipNL()
	saved := p.ctx
	p.ctx.noLambda = false
	p.push()
	for _, prm := range params {
		p.bind(prm.Name, bindValue)
	}
	var body Expr
	if t := p.peek(); p.lambdaBodyIsCommand(t) {
		p.pos = t.start
		body = p.finishExpr(p.parseCommand())
	} else {
		body = p.parseExpr()
	}
	p.pop()
	p.ctx = saved
	sp := mkSpan(start, int(body.Pos().End))
	p.node(max(hp, p.h), sp)
	return p.newLambda(Lambda{Params: params, Body: body, Span: sp})
}

// pathWordEnd returns the end of the explicit path word starting at pos
// (isPathHead holds there), ok false when the word is not a plain path: a
// glob, an escape, or text that does not classify as a path. The word
// also stops at `]`, `}` and `,`, so `[./a, ./b]` holds two paths.
func pathWordEnd(src string, pos int) (int, bool) {
	w := scanWord(src, pos, true)
	if w.kind != tWord || w.flags&(fGlob|fEscape) != 0 {
		return 0, false
	}
	end := w.end
	for i := pos; i < end; i++ {
		if src[i] == ']' || src[i] == '}' || src[i] == '{' {
			end = i
			break
		}
	}
	if end == pos || classifyWord(src[pos:end], 0) != ArgPath {
		return 0, false
	}
	return end, true
}

// pathLit makes the path literal src[start:end] and moves past it.
func (p *parser) pathLit(start, end int) Expr {
	sp := mkSpan(start, end)
	p.pos = end
	p.leaf(sp)
	return &PathLit{Path: p.src[start:end], Span: sp}
}

// lambdaBodyIsCommand reports whether a lambda body starting at t is a
// command, as in `t => echo (t)` or `f => cat (f) --n 2`: an identifier that
// heads a command where a statement would (not value-bound, not a call or
// field access) and is followed on its line by a command argument. A lone
// unbound name (`x => y`) or one an operator follows (`x => y + 1`) stays
// an expression, so its error is still the undefined variable.
func (p *parser) lambdaBodyIsCommand(t token) bool {
	if t.kind == tCaret {
		return true
	}
	if t.kind != tIdent || !p.identStartsCommand(t) {
		return false
	}
	next := p.peekAt(t.end)
	switch next.kind {
	case tRParen, tRBracket, tRBrace, tComma, tNewline, tSemi, tEOF, tDot, tFatArrow, kwCatch:
		return false
	}
	return binaryPrec(next.kind) == 0
}

// parseParenOrLambda parses `(params) => body` when the parenthesised text
// is a parameter list followed by `=>`, and otherwise `( expr-or-command )`.
func (p *parser) parseParenOrLambda(open token) Expr {
	if params, arrow, ok := p.scanLambdaParams(open.end); ok {
		p.pos = arrow
		return p.finishLambda(params, p.h, open.start)
	}
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	x := p.parseExprEOC()
	t := p.peek()
	if t.kind != tRParen {
		if t.kind == tComma {
			p.failTok(t, "unexpected `,` in parentheses", "a list is written [a, b]")
		}
		p.failTok(t, "expected `)`, found "+p.describe(t), "close the parenthesis with `)`")
	}
	p.pos = t.end
	p.ctx = saved
	return x
}

// scanLambdaParams speculatively reads `name (: type)?, ... )` followed by
// `=>` starting after a `(`. It never fails; ok reports a match, and then
// p.h is the tallest parameter's height.
func (p *parser) scanLambdaParams(pos int) (params []*Param, arrowEnd int, ok bool) {
	ps := &p.ar.paramSeq
	mark := ps.mark()
	hp := 0
	for {
		t := p.peekPastNL(pos)
		if t.kind == tRParen && ps.mark() == mark {
			pos = t.end
			break
		}
		if t.kind != tIdent {
			ps.drop(mark)
			return nil, 0, false
		}
		prm := p.newParam(Param{Name: p.text(t), Span: mkSpan(t.start, t.end)})
		pos = t.end
		t = p.peekPastNL(pos)
		p.h = 0
		if t.kind == tColon {
			typ, end, tok := p.parseTypeAt(t.end)
			if !tok {
				ps.drop(mark)
				return nil, 0, false
			}
			prm.Type = typ
			prm.Span.End = typ.Span.End
			pos = end
			t = p.peekPastNL(pos)
		}
		p.node(p.h, prm.Span)
		hp = max(hp, p.h)
		ps.push(prm)
		pos = t.end
		if t.kind == tRParen {
			break
		}
		if t.kind != tComma {
			ps.drop(mark)
			return nil, 0, false
		}
	}
	a := p.peekAt(pos)
	if a.kind != tFatArrow {
		ps.drop(mark)
		return nil, 0, false
	}
	p.h = hp
	return ps.take(mark), a.end, true
}

func (p *parser) parseList(open token) Expr {
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	elems := &p.ar.exprSeq
	mark := elems.mark()
	h := 0
	for {
		t := p.peek()
		if t.kind == tRBracket {
			p.pos = t.end
			p.ctx = saved
			sp := mkSpan(open.start, t.end)
			p.node(h, sp)
			return p.newList(List{Elems: elems.take(mark), Span: sp})
		}
		elems.push(p.parseExpr())
		h = max(h, p.h)
		t = p.peek()
		switch t.kind {
		case tComma:
			p.pos = t.end
		case tRBracket:
		default:
			p.failSep(t, "expected `,` or `]` in list, found "+p.describe(t), "elements", "list", "`]`")
		}
	}
}

// parseBraceExpr disambiguates `{`: `{}` and a first `key:` entry make a
// record; anything else is a block.
func (p *parser) parseBraceExpr(open token) Expr {
	if p.isRecordStart(open.end) {
		return p.parseRecord(open)
	}
	return p.parseBlock()
}

func (p *parser) isRecordStart(pos int) bool {
	t := p.peekPastNL(pos)
	switch {
	case t.kind == tRBrace:
		return true
	case t.kind.isName(), t.kind == tStr:
		c := p.peekAt(t.end)
		if t.kind == tIdent && c.kind == tComma {
			return true // { probe, answer: 42 }: a block cannot go on after `,`
		}
		return c.kind == tColon && (c.end >= len(p.src) || p.src[c.end] != ':')
	}
	return false
}

// shorthandField reports whether the record key t stands alone, ending
// the field with `,` or `}`.
func (p *parser) shorthandField(t token) bool {
	n := p.peekAt(t.end)
	if n.kind == tNewline {
		n = p.peekPastNL(t.end)
	}
	return n.kind == tComma || n.kind == tRBrace
}

func (p *parser) parseRecord(open token) Expr {
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	fields := &p.ar.fieldSeq
	mark := fields.mark()
	h := 0
	for {
		t := p.peek()
		if t.kind == tRBrace {
			p.pos = t.end
			p.ctx = saved
			sp := mkSpan(open.start, t.end)
			p.node(h, sp)
			return p.newRecord(Record{Fields: fields.take(mark), Span: sp})
		}
		var key string
		switch {
		case t.kind == tIdent && p.shorthandField(t):
			// `{ probe, … }` is `{ probe: probe, … }`.
			key = p.text(t)
			v := p.makeVar(key, mkSpan(t.start, t.end))
			p.pos = t.end
			fields.push(p.newRecordField(RecordField{Key: key, Value: v, Span: v.Span}))
			h = max(h, 1)
			if n := p.peek(); n.kind == tComma {
				p.pos = n.end
			}
			continue
		case t.kind.isName():
			key = p.text(t)
			p.pos = t.end
		case t.kind == tStr:
			s, ok := p.parseStringTok(t).(*StrLit)
			if !ok {
				p.fail(mkSpan(t.start, t.end), "a record key cannot interpolate", "compute keys with .set(key, value)", false)
			}
			key = s.Value
		default:
			p.failTok(t, "expected a record key, found "+p.describe(t),
				"write {key: value, ...}; quote keys that are not plain names")
		}
		p.expect(tColon, "`:` after record key", "write key: value")
		if d := p.peek(); d.kind == tDot {
			if ok, _ := identStartAt(p.src, d.end); ok {
				p.failTok(d, "a leading `.` has no receiver here: `."+p.src[d.end:scanIdent(p.src, d.end)]+"` inside a record is not the item shorthand",
					"name the item and build the record from it: xs.map(x => {"+key+": x."+p.src[d.end:scanIdent(p.src, d.end)]+"})")
			}
		}
		v := p.parseExpr()
		sp := mkSpan(t.start, int(v.Pos().End))
		p.node(p.h, sp)
		h = max(h, p.h)
		fields.push(p.newRecordField(RecordField{Key: key, Value: v, Span: sp}))
		t = p.peek()
		switch t.kind {
		case tComma:
			p.pos = t.end
		case tRBrace:
		default:
			p.failSep(t, "expected `,` or `}` in record, found "+p.describe(t), "fields", "record", "`}`")
		}
	}
}

// parseIf parses an if expression; each `else if` nests a parse.
func (p *parser) parseIf(kw token) Expr {
	p.enter(kw)
	p.pos = kw.end
	cond := p.parseHeader()
	h := p.h
	then := p.parseBlock()
	h = max(h, p.h)
	n := p.newIf(If{Cond: cond, Then: then, Span: mkSpan(kw.start, int(then.Span.End))})
	if e := p.peekPastNL(p.pos); e.kind == kwElse {
		p.pos = e.end
		if i := p.peek(); i.kind == kwIf {
			n.Else = p.parseIf(i)
		} else {
			n.Else = p.parseBlock()
		}
		h = max(h, p.h)
		n.Span.End = n.Else.Pos().End
	}
	p.node(h, n.Span)
	p.leave()
	return n
}

func (p *parser) parseTry(kw token) Expr {
	p.pos = kw.end
	body := p.parseBlock()
	h := p.h
	c := p.peekPastNL(p.pos)
	if c.kind != kwCatch {
		p.failTok(c, "expected `catch` after try block, found "+p.describe(c),
			"write try { ... } catch err { ... }")
	}
	p.pos = c.end
	binder := ""
	if b := p.peek(); b.kind == tIdent {
		binder = p.text(b)
		p.pos = b.end
	}
	p.push()
	p.bind(binder, bindValue)
	handler := p.parseBlock()
	p.pop()
	if binder == "_" {
		binder = ""
	}
	sp := mkSpan(kw.start, int(handler.Span.End))
	p.node(max(h, p.h), sp)
	return p.newTry(Try{Body: body, Binder: binder, Handler: handler, Span: sp})
}

func (p *parser) parseWith(kw token) Expr {
	p.pos = kw.end
	saved := p.ctx
	p.ctx.noTrailing = true
	p.ctx.noLambda = false
	entries := &p.ar.withSeq
	mark := entries.mark()
	h := 0
	for {
		k := p.peek()
		if !k.kind.isName() {
			p.failTok(k, "expected cwd:, env: or reef: after with, found "+p.describe(k),
				"write with cwd: \"dir\" { ... }")
		}
		key := p.text(k)
		if key != "cwd" && key != "env" && key != "reef" {
			p.fail(mkSpan(k.start, k.end), "unknown with scope `"+key+"`", "with accepts cwd:, env: and reef:", false)
		}
		p.pos = k.end
		if c := p.peek(); c.kind != tColon {
			p.failTok(c, "expected `:`, found "+p.describe(c), "write "+key+": value")
		}
		p.expect(tColon, "`:`", "")
		v := p.parseExpr()
		sp := mkSpan(k.start, int(v.Pos().End))
		p.node(p.h, sp)
		h = max(h, p.h)
		entries.push(p.newWithEntry(WithEntry{Key: key, Value: v, Span: sp}))
		c := p.peek()
		if c.kind != tComma {
			break
		}
		p.pos = c.end
		p.skipNL()
	}
	p.ctx = saved
	ents := entries.take(mark)
	body := p.parseBlock()
	sp := mkSpan(kw.start, int(body.Span.End))
	p.node(max(h, p.h), sp)
	return p.newWith(With{Entries: ents, Body: body, Span: sp})
}

// isInterpreter reports whether a command head takes a raw source block.
func isInterpreter(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "fish", "python", "python3", "node", "deno", "ruby",
		"perl", "lua", "php", "Rscript", "osascript", "jq", "yq":
		return true
	}
	return false
}

// langBlockAt returns the offset of a raw block opener (a brace or triple single quote)
// following an interpreter head that ends at pos, or -1.
func (p *parser) langBlockAt(pos int) int {
	if p.ctx.noTrailing {
		return -1
	}
	for pos < len(p.src) && (p.src[pos] == ' ' || p.src[pos] == '\t') {
		pos++
	}
	if pos < len(p.src) && p.src[pos] == '{' {
		return pos
	}
	if pos+3 <= len(p.src) && p.src[pos:pos+3] == "'''" {
		return pos
	}
	return -1
}

// parseLangBlock parses `tool { raw }` or tool with a triple-single-quoted body, or returns nil
// when no raw block follows the head.
func (p *parser) parseLangBlock(t token) *LangBlock {
	at := p.langBlockAt(t.end)
	if at < 0 {
		return nil
	}
	src := p.src
	tool := src[t.start:t.end]
	if src[at] == '{' {
		depth := 0
		for i := at; i < len(src); i++ {
			switch src[i] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					p.pos = i + 1
					sp := mkSpan(t.start, i+1)
					p.leaf(sp)
					return p.newLangBlock(LangBlock{Tool: tool, Source: src[at+1 : i], Span: sp})
				}
			}
		}
		p.fail(mkSpan(t.start, len(src)), "unbalanced braces in "+tool+" { ... } block (lang_block_unbalanced)",
			"balance the braces, or use the '''...''' form", true)
	}
	body := at + 3
	for i := body; i+3 <= len(src); i++ {
		if src[i:i+3] == "'''" {
			p.pos = i + 3
			text := src[body:i]
			for j := 0; j < len(text); j++ {
				if text[j] == '\n' {
					text = dedentRaw(text)
					break
				}
			}
			sp := mkSpan(t.start, i+3)
			p.leaf(sp)
			return p.newLangBlock(LangBlock{Tool: tool, Source: text, Span: sp})
		}
	}
	p.fail(mkSpan(t.start, len(src)), "unterminated "+tool+" '''...''' block",
		"the source ends before the block is closed; end it with '''", true)
	return nil
}

// parseType parses a type annotation at p.pos or fails; p.h is its height.
func (p *parser) parseType() *TypeExpr {
	typ, end, ok := p.parseTypeAt(p.pos)
	if !ok {
		t := p.peek()
		p.failTok(t, "expected a type, found "+p.describe(t), "types are names such as int, str, list<int> or record?")
	}
	p.pos = end
	return typ
}

// parseTypeAt reads `NAME (<T, ...>)? ?` at pos without failing. On
// success p.h is the type's height.
func (p *parser) parseTypeAt(pos int) (*TypeExpr, int, bool) {
	return p.parseTypeDepth(pos, 0)
}

func (p *parser) parseTypeDepth(pos, depth int) (*TypeExpr, int, bool) {
	src := p.src
	if depth > maxTypeNesting {
		return nil, 0, false
	}
	pos, bad := skipTrivia(src, pos)
	if bad != nil {
		return nil, 0, false
	}
	if ok, _ := identStartAt(src, pos); !ok {
		return nil, 0, false
	}
	end := scanIdent(src, pos)
	typ := p.newTypeExpr(TypeExpr{Name: src[pos:end], Span: mkSpan(pos, end)})
	h := 0
	if end < len(src) && src[end] == '<' {
		args := &p.ar.typeSeq
		mark := args.mark()
		i := end + 1
		for {
			arg, e, ok := p.parseTypeDepth(i, depth+1)
			if !ok {
				args.drop(mark)
				return nil, 0, false
			}
			h = max(h, p.h)
			args.push(arg)
			i, _ = skipTrivia(src, e)
			if i < len(src) && src[i] == ',' {
				i++
				continue
			}
			if i < len(src) && src[i] == '>' {
				end = i + 1
				break
			}
			args.drop(mark)
			return nil, 0, false
		}
		typ.Args = args.take(mark)
	}
	if end < len(src) && src[end] == '?' && !(end+1 < len(src) && (src[end+1] == '.' || src[end+1] == '?')) {
		typ.Optional = true
		end++
	}
	typ.Span.End = int32(end)
	p.node(h, typ.Span)
	return typ, end, true
}
