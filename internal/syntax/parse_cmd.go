package syntax

import "strings"

func (p *parser) cmdLexMode() mode {
	if p.ctx.inArgs {
		return cmdArgMode
	}
	return cmdMode
}

// envAssignAt returns the offset of the `=` when `NAME=` starts at pos.
func envAssignAt(src string, pos int) int {
	if pos >= len(src) || !isIdentStartByte(src[pos]) {
		return -1
	}
	i := pos + 1
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '=' && (i+1 >= len(src) || (src[i+1] != '=' && src[i+1] != '>')) {
		return i
	}
	return -1
}

// envCommandAt reports whether `NAME=value` at pos is followed by more
// command content, making it an environment prefix (dispatch rule 6).
func (p *parser) envCommandAt(pos int) bool {
	eq := envAssignAt(p.src, pos)
	if eq < 0 {
		return false
	}
	m := p.cmdLexMode()
	end := eq + 1
	if end < len(p.src) && (!isWordStop(p.src[end], m == cmdArgMode) || p.src[end] == '"' || p.src[end] == '\'') {
		v := lex(p.src, end, m)
		switch v.kind {
		case tWord, tStr, tShortFlag, tLongFlag, tDash, tDashDash:
			end = v.end
		default:
			return false
		}
	}
	switch lex(p.src, end, m).kind {
	case tNewline, tSemi, tEOF, tRParen, tRBrace, tAndAnd, tOrOr, tComma, tIllegal:
		return false
	}
	return true
}

// parseCommand parses a command call at p.pos:
// env-prefix* ^? head args/redirects* &? trailing-block?
func (p *parser) parseCommand() *Cmd {
	m := p.cmdLexMode()
	first := lex(p.src, p.pos, m)
	p.enter(first) // a command's arguments may hold commands
	defer p.leave()
	start := first.start
	h := 0
	call := p.newCmdCall(CmdCall{})
	pos := start
	envs := &p.ar.envSeq
	envMark := envs.mark()
	for {
		eq := envAssignAt(p.src, pos)
		if eq < 0 {
			break
		}
		val := p.cmdValueAt(eq+1, m)
		sp := mkSpan(pos, int(val.Span.End))
		p.node(p.h, sp)
		h = max(h, p.h)
		envs.push(&EnvPrefix{Name: p.src[pos:eq], Value: val, Span: sp})
		pos, _ = skipTrivia(p.src, int(val.Span.End))
	}
	if env := envs.take(envMark); env != nil {
		call.Env = env
	}
	if pos < len(p.src) && p.src[pos] == '^' {
		call.Forced = true
		pos++
	}
	hd := first
	if pos != start {
		hd = lex(p.src, pos, m)
	}
	if hd.kind != tWord || hd.start != pos {
		if call.Forced && hd.start != pos {
			p.fail(mkSpan(pos-1, pos), "`^` must be followed directly by a command name",
				"write the name right after `^`, as in ^ls -l", hd.kind == tEOF)
		}
		p.failTok(hd, "expected a command name, found "+p.describe(hd),
			"a command starts with a program name or a path such as ./script")
	}
	text := wordText(p.src[hd.start:hd.end], hd.flags)
	kind := classifyWord(text, hd.flags)
	if kind == ArgGlob {
		p.fail(mkSpan(hd.start, hd.end), "a glob cannot be a command name",
			"name the program or its path; quote the word if * ? [ are literal", false)
	}
	call.Head = p.newCmdArg(CmdArg{Kind: kind, Text: text, Span: mkSpan(hd.start, hd.end)})
	p.leaf(call.Head.Span)
	h = max(h, p.h)
	p.pos = hd.end
	end := hd.end
	args := &p.ar.cmdSeq
	mark := args.mark()
	redirs := &p.ar.redirSeq
	redirMark := redirs.mark()
loop:
	for {
		t := lex(p.src, p.pos, m)
		if args.mark() == mark && redirs.mark() == redirMark && !call.Forced && len(call.Env) == 0 && call.Head.Kind == ArgWord && comparisonAt(p.src, t.start) {
			// `pwd == root`: a bare command compared with a value is the
			// command's result in the comparison, not `==` as its argument.
			break loop
		}
		switch t.kind {
		case tNewline, tSemi, tEOF, tRParen, tRBrace, tAndAnd, tOrOr, tComma:
			break loop
		case tAmp:
			call.Background = true
			p.pos = t.end
			end = t.end
			switch n := lex(p.src, p.pos, m); n.kind {
			case tNewline, tSemi, tEOF, tRParen, tRBrace:
			default:
				p.failTok(n, "`&` must end the command",
					"a trailing & runs the whole command in the background; logical and is &&")
			}
			break loop
		case tGt, tAppend, tLt:
			p.pos = t.end
			target := p.parseCmdArg(lex(p.src, p.pos, m), m)
			kind := RedirOut
			if t.kind == tAppend {
				kind = RedirAppend
			} else if t.kind == tLt {
				kind = RedirIn
			}
			sp := mkSpan(t.start, int(target.Span.End))
			p.node(p.h, sp)
			h = max(h, p.h)
			redirs.push(p.newRedirect(Redirect{Kind: kind, Target: target, Span: sp}))
			end = int(target.Span.End)
		case tLBrace:
			if p.isRecordStart(t.end) && p.peekPastNL(t.end).kind != tRBrace {
				// echo {name: "api", ready: true}: a record is a value
				// argument; a block can only end the command.
				saved := p.ctx
				rec := p.parseRecord(t)
				p.ctx = saved
				h = max(h, p.h)
				args.push(p.newCmdArg(CmdArg{Kind: ArgExpr, X: rec, Span: rec.Pos()}))
				end = int(rec.Pos().End)
				continue
			}
			if p.ctx.noTrailing {
				break loop
			}
			call.Trailing = p.parseBlock()
			h = max(h, p.h)
			end = int(call.Trailing.Span.End)
			break loop
		default:
			arg := p.parseCmdArg(t, m)
			h = max(h, p.h)
			args.push(arg)
			end = int(arg.Span.End)
		}
	}
	if as := args.take(mark); as != nil {
		call.Args = as
	}
	if rs := redirs.take(redirMark); rs != nil {
		call.Redirects = rs
	}
	call.Span = mkSpan(start, end)
	p.node(h, call.Span)
	p.node(p.h, call.Span)
	return p.newCmd(Cmd{Call: call, Span: call.Span})
}

// cmdValueAt parses the value of `NAME=value` or `--flag=value` at pos; an
// empty value is an empty word.
func (p *parser) cmdValueAt(pos int, m mode) *CmdArg {
	if pos >= len(p.src) || isWordStop(p.src[pos], m == cmdArgMode) && p.src[pos] != '"' && p.src[pos] != '\'' {
		p.leaf(mkSpan(pos, pos))
		return p.newCmdArg(CmdArg{Kind: ArgWord, Span: mkSpan(pos, pos)})
	}
	t := lex(p.src, pos, m)
	switch t.kind {
	case tWord, tStr, tShortFlag, tLongFlag, tDash, tDashDash:
	default:
		p.failTok(t, "expected a value after `=`, found "+p.describe(t),
			"write NAME=value with no spaces around `=`, or quote the value")
	}
	if t.kind == tStr {
		return p.parseCmdArg(t, m)
	}
	text := wordText(p.src[t.start:t.end], t.flags)
	p.leaf(mkSpan(t.start, t.end))
	return p.newCmdArg(CmdArg{Kind: classifyWord(text, t.flags), Text: text, Span: mkSpan(t.start, t.end)})
}

// parseCmdArg parses one command argument starting with token t and
// advances p.pos past it.
func (p *parser) parseCmdArg(t token, m mode) *CmdArg {
	sp := mkSpan(t.start, t.end)
	switch t.kind {
	case tWord:
		text := wordText(p.src[t.start:t.end], t.flags)
		if t.end < len(p.src) && p.src[t.end] == '(' && t.flags == 0 && p.isIdentText(text) && p.valueBound(text) {
			// A value-bound constructor call such as path("x") as an argument.
			p.pos = t.end
			saved := p.ctx
			p.ctx = pctx{}
			x := p.parsePostfix(p.makeVar(text, sp), t.start)
			p.ctx = saved
			asp := mkSpan(t.start, p.pos)
			p.node(p.h, asp)
			return p.newCmdArg(CmdArg{Kind: ArgExpr, X: x, Span: asp})
		}
		p.pos = t.end
		if t.end < len(p.src) && (p.src[t.end] == '"' || p.src[t.end] == '\'') && t.flags&fGlob == 0 {
			return p.gluedWordString(text, t, m)
		}
		p.leaf(sp)
		return p.newCmdArg(CmdArg{Kind: classifyWord(text, t.flags), Text: text, Span: sp})
	case tStr:
		x := p.parseStringTok(t)
		p.node(p.h, sp)
		return p.newCmdArg(CmdArg{Kind: ArgStr, X: x, Span: sp})
	case tLParen:
		p.pos = t.end
		saved := p.ctx
		p.ctx = pctx{ignoreNL: true}
		x := p.parseExprEOC()
		hx := p.h
		c := p.expect(tRParen, "`)`", "close the parenthesised argument with `)`")
		p.ctx = saved
		asp := mkSpan(t.start, c.end)
		if ok, _ := identStartAt(p.src, c.end+1); ok && p.src[c.end] == '.' {
			// (cat f).stdout: a field or method glued to the parentheses
			// belongs to the same argument.
			p.pos = c.end
			p.h = hx
			p.ctx = pctx{}
			x = p.parsePostfix(x, t.start)
			p.ctx = saved
			hx = p.h
			asp = mkSpan(t.start, p.pos)
		}
		p.node(hx, asp)
		return p.newCmdArg(CmdArg{Kind: ArgExpr, X: x, Span: asp})
	case tLongFlag:
		a := p.newCmdArg(CmdArg{Kind: ArgLongFlag, Name: p.src[t.start+2 : t.end], Span: sp})
		p.pos = t.end
		p.h = 0
		if t.end < len(p.src) && p.src[t.end] == '=' {
			a.Value = p.cmdValueAt(t.end+1, m)
			a.Span.End = a.Value.Span.End
			p.pos = int(a.Span.End)
		}
		p.node(p.h, a.Span)
		return a
	case tShortFlag:
		p.pos = t.end
		p.leaf(sp)
		return p.newCmdArg(CmdArg{Kind: ArgShortFlag, Text: wordText(p.src[t.start+1:t.end], t.flags), Span: sp})
	case tDashDash:
		p.pos = t.end
		p.leaf(sp)
		return p.newCmdArg(CmdArg{Kind: ArgDashDash, Span: sp})
	case tDash:
		p.pos = t.end
		p.leaf(sp)
		return p.newCmdArg(CmdArg{Kind: ArgDash, Span: sp})
	}
	if t.kind == tLBrace {
		p.failTok(t, "expected a command argument, found LBrace",
			"a `{ ... }` block can only end a command; quote a literal brace")
	}
	p.failTok(t, "expected a command argument, found "+p.describe(t),
		"arguments are words, quoted strings, flags or (expressions)")
	return nil
}

// gluedWordString joins `NAME=` and a directly following quoted string
// into one string argument (make CC="gcc -O2").
func (p *parser) gluedWordString(prefix string, w token, m mode) *CmdArg {
	st := lex(p.src, w.end, m)
	if st.kind != tStr {
		p.failTok(st, "expected a string, found "+p.describe(st), "put the quoted value right after `=`")
	}
	sp := mkSpan(w.start, st.end)
	var x Expr
	switch s := p.parseStringTok(st).(type) {
	case *StrLit:
		x = p.newStrLit(StrLit{Value: prefix + s.Value, Raw: s.Raw, Span: sp})
	case *StrInterp:
		parts := append([]StrPart{{Lit: prefix}}, s.Parts...)
		x = p.newStrInterp(StrInterp{Parts: parts, Span: sp})
	}
	p.node(p.h, sp) // the prefix part adds no height
	return p.newCmdArg(CmdArg{Kind: ArgStr, X: x, Span: sp})
}

func (p *parser) isIdentText(s string) bool {
	if ok, _ := identStartAt(s, 0); !ok {
		return false
	}
	return scanIdent(s, 0) == len(s)
}

// comparisonAt reports whether `==` or `!=` stands alone at pos.
func comparisonAt(src string, pos int) bool {
	if pos+2 > len(src) || (src[pos:pos+2] != "==" && src[pos:pos+2] != "!=") {
		return false
	}
	return pos+2 == len(src) || src[pos+2] == ' ' || src[pos+2] == '\t'
}

// classifyWord decides whether a bare word is a glob, a path or a word.
func classifyWord(text string, flags uint8) ArgKind {
	if flags&fGlob != 0 {
		return ArgGlob
	}
	if text == "~" || text == "." || text == ".." ||
		strings.HasPrefix(text, "/") || strings.HasPrefix(text, "./") ||
		strings.HasPrefix(text, "../") || strings.HasPrefix(text, "~/") {
		return ArgPath
	}
	return ArgWord
}

// wordText removes backslash escapes from a command word.
func wordText(raw string, flags uint8) string {
	if flags&fEscape == 0 {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}
