package syntax

func (p *parser) parseMatch(kw token) Expr {
	p.pos = kw.end
	subject := p.parseHeader()
	h := p.h
	open := p.expect(tLBrace, "`{` to open the match arms", "write match value { pattern => result, ... }")
	saved := p.ctx
	p.ctx = pctx{}
	m := p.newMatch(Match{Subject: subject})
	arms := &p.ar.armSeq
	mark := arms.mark()
	for {
		t := p.peek()
		for t.kind == tNewline || t.kind == tSemi || t.kind == tComma {
			p.pos = t.end
			t = p.peek()
		}
		if t.kind == tRBrace {
			p.pos = t.end
			m.Span = mkSpan(kw.start, t.end)
			break
		}
		if t.kind == tPipe {
			p.fail(mkSpan(t.start, t.end), "unexpected `|` at the start of a match arm",
				"alternation is `a | b => …`; drop the leading `|`", false)
		}
		if t.kind == tEOF {
			p.fail(mkSpan(open.start, t.end), "expected `}` to close the match, found EOF",
				"the source ends before the match is closed; add `}`", true)
		}
		arms.push(p.parseArm(t))
		h = max(h, p.h)
		t = p.peek()
		switch t.kind {
		case tNewline, tSemi, tComma, tRBrace:
		default:
			p.failTok(t, "expected a newline, `;` or `,` after a match arm, found "+p.describe(t),
				"put each arm on its own line, or separate arms with `,`")
		}
	}
	m.Arms = arms.take(mark)
	p.ctx = saved
	p.node(h, m.Span)
	return m
}

func (p *parser) parseArm(first token) *MatchArm {
	p.push()
	defer p.pop()
	arm := p.newMatchArm(MatchArm{})
	pats := &p.ar.patSeq
	mark := pats.mark()
	pats.push(p.parsePattern())
	h := p.h
	for {
		t := p.peek()
		if t.kind != tPipe {
			break
		}
		p.pos = t.end
		p.skipNL()
		pats.push(p.parsePattern())
		h = max(h, p.h)
	}
	arm.Patterns = pats.take(mark)
	if t := p.peek(); t.kind == kwIf {
		p.pos = t.end
		saved := p.ctx
		p.ctx.noLambda = true
		arm.Guard = p.parseExpr()
		h = max(h, p.h)
		p.ctx = saved
	}
	p.expect(tFatArrow, "`=>` in match arm", "write pattern => result; a guard goes before `=>`: n if n > 0 => ...")
	p.skipNL()
	if t := p.peek(); t.kind == tLBrace {
		arm.Body = p.parseBraceExpr(t)
	} else {
		arm.Body = p.parseExpr()
	}
	arm.Span = mkSpan(first.start, int(arm.Body.Pos().End))
	p.node(max(h, p.h), arm.Span)
	return arm
}

// typePatternNames are the runtime type names a `TYPE binder` pattern tests.
func isTypePatternName(s string) bool {
	switch s {
	case "null", "bool", "int", "float", "str", "path", "glob", "regex", "size",
		"duration", "datetime", "time", "bytes", "list", "record", "table", "range",
		"stream", "error", "outcome", "task", "closure", "command", "secret":
		return true
	}
	return false
}

func (p *parser) parsePattern() Pattern {
	t := p.peek()
	p.enter(t)
	defer p.leave()
	sp := mkSpan(t.start, t.end)
	switch t.kind {
	case tIdent:
		name := p.text(t)
		p.pos = t.end
		if name == "_" {
			p.leaf(sp)
			return p.newWildcardPat(WildcardPat{Span: sp})
		}
		if isTypePatternName(name) {
			if b := p.peekAt(t.end); b.kind == tIdent {
				p.pos = b.end
				binder := p.text(b)
				p.bind(binder, bindValue)
				if binder == "_" {
					binder = ""
				}
				tsp := mkSpan(t.start, b.end)
				p.leaf(tsp)
				return p.newTypePat(TypePat{Type: name, Binder: binder, Span: tsp})
			}
		}
		p.bind(name, bindValue)
		p.leaf(sp)
		return p.newBindPat(BindPat{Name: name, Span: sp})
	case kwNull, kwTrue, kwFalse:
		v := p.parsePrimary()
		p.node(p.h, sp)
		return p.newLitPat(LitPat{Value: v, Span: sp})
	case tInt, tMinus:
		lit := p.parsePatLiteral()
		if r := p.peek(); r.kind == tDotDot || r.kind == tDotDotEq {
			lo, ok := lit.(*IntLit)
			if !ok {
				p.fail(lit.Pos(), "a range pattern needs integer bounds", "write integer bounds such as 1..10 or 0..=9", false)
			}
			p.pos = r.end
			hi, ok := p.parsePatLiteral().(*IntLit)
			if !ok {
				p.fail(mkSpan(r.end, p.pos), "a range pattern needs integer bounds", "write integer bounds such as 1..10 or 0..=9", false)
			}
			rsp := mkSpan(t.start, int(hi.Span.End))
			p.leaf(rsp)
			return &RangePat{Lo: lo.Value, Hi: hi.Value, Inclusive: r.kind == tDotDotEq, Span: rsp}
		}
		p.node(p.h, lit.Pos())
		return p.newLitPat(LitPat{Value: lit, Span: lit.Pos()})
	case tFloat, tSize, tDuration, tTime:
		lit := p.parsePrimary()
		p.node(p.h, sp)
		return p.newLitPat(LitPat{Value: lit, Span: sp})
	case tStr:
		lit := p.parseStringTok(t)
		if _, ok := lit.(*StrLit); !ok {
			p.fail(sp, "a string pattern cannot interpolate", "bind the value and compare in a guard: s if s == \"...\"", false)
		}
		p.node(p.h, sp)
		return p.newLitPat(LitPat{Value: lit, Span: sp})
	case tLBrace:
		return p.parseRecordPat(t)
	case tLBracket:
		return p.parseListPat(t)
	case tPipe:
		p.fail(sp, "unexpected `|` at the start of a match arm",
			"alternation is `a | b => …`; drop the leading `|`", false)
	}
	p.failTok(t, "expected a pattern, found "+p.describe(t),
		"patterns are literals, names, _, TYPE name, [a, ...rest] or {key: pattern}")
	return nil
}

// parsePatLiteral parses a possibly negative numeric literal in a pattern,
// folding the sign into the literal.
func (p *parser) parsePatLiteral() Expr {
	t := p.peek()
	if t.kind != tMinus {
		if t.kind != tInt && t.kind != tFloat && t.kind != tSize && t.kind != tDuration {
			p.failTok(t, "expected a literal pattern, found "+p.describe(t),
				"write a number here, as in -1 or 1..10")
		}
		return p.parsePrimary()
	}
	p.pos = t.end
	n := p.peek()
	if n.kind == tInt && p.text(n) == "9223372036854775808" {
		p.pos = n.end
		sp := mkSpan(t.start, n.end)
		p.leaf(sp)
		return p.newIntLit(IntLit{Value: -9223372036854775808, Span: sp})
	}
	p.enter(t)
	inner := p.parsePatLiteral()
	p.leave()
	switch lit := inner.(type) {
	case *IntLit:
		return p.newIntLit(IntLit{Value: -lit.Value, Span: mkSpan(t.start, int(lit.Span.End))})
	case *FloatLit:
		return p.newFloatLit(FloatLit{Value: -lit.Value, Span: mkSpan(t.start, int(lit.Span.End))})
	case *DurationLit:
		return p.newDurationLit(DurationLit{Nanos: -lit.Nanos, Span: mkSpan(t.start, int(lit.Span.End))})
	default:
		p.fail(lit.Pos(), "this literal cannot be negated in a pattern",
			"only integers, floats and durations can be negative", false)
	}
	return nil
}

func (p *parser) parseRecordPat(open token) Pattern {
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	rp := &RecordPat{}
	h := 0
	for {
		t := p.peek()
		if t.kind == tRBrace {
			p.pos = t.end
			rp.Span = mkSpan(open.start, t.end)
			break
		}
		var key string
		switch {
		case t.kind.isName():
			key = p.text(t)
			p.pos = t.end
		case t.kind == tStr:
			s, ok := p.parseStringTok(t).(*StrLit)
			if !ok {
				p.fail(mkSpan(t.start, t.end), "a record pattern key cannot interpolate",
					"write the key as a plain name or a string without {...}", false)
			}
			key = s.Value
		default:
			p.failTok(t, "expected a field name in record pattern, found "+p.describe(t),
				"write {name} or {name: pattern}")
		}
		f := &RecordPatField{Key: key, Span: mkSpan(t.start, p.pos)}
		p.h = 0
		if c := p.peek(); c.kind == tColon {
			p.pos = c.end
			f.Pat = p.parsePattern()
			f.Span.End = f.Pat.Pos().End
		} else {
			if t.kind != tIdent {
				p.fail(f.Span, "shorthand field `"+key+"` needs a pattern: write `"+key+": name`",
					"only a plain name can bind itself; a quoted key needs `: pattern`", false)
			}
			p.bind(key, bindValue)
		}
		p.node(p.h, f.Span)
		h = max(h, p.h)
		rp.Fields = append(rp.Fields, f)
		t = p.peek()
		switch t.kind {
		case tComma:
			p.pos = t.end
		case tRBrace:
		default:
			p.failSep(t, "expected `,` or `}` in record pattern, found "+p.describe(t), "fields", "record pattern", "`}`")
		}
	}
	p.ctx = saved
	p.node(h, rp.Span)
	return rp
}

func (p *parser) parseListPat(open token) Pattern {
	p.pos = open.end
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	lp := &ListPat{}
	elems := &p.ar.patSeq
	mark := elems.mark()
	h := 0
	for {
		t := p.peek()
		if t.kind == tRBracket {
			p.pos = t.end
			lp.Span = mkSpan(open.start, t.end)
			break
		}
		if lp.HasRest {
			p.failTok(t, "a `...rest` pattern must be the last element of a list pattern",
				"match the tail with [first, ...rest]")
		}
		if t.kind == tEllipsis {
			p.pos = t.end
			lp.HasRest = true
			if n := p.peekAt(p.pos); n.kind == tIdent {
				lp.Rest = p.text(n)
				p.pos = n.end
				p.bind(lp.Rest, bindValue)
			}
		} else {
			elems.push(p.parsePattern())
			h = max(h, p.h)
		}
		t = p.peek()
		switch t.kind {
		case tComma:
			p.pos = t.end
		case tRBracket:
		default:
			p.failSep(t, "expected `,` or `]` in list pattern, found "+p.describe(t), "elements", "list pattern", "`]`")
		}
	}
	lp.Elems = elems.take(mark)
	p.ctx = saved
	p.node(h, lp.Span)
	return lp
}
