package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseStringTok decodes a string token into a *StrLit, or a *StrInterp
// when it has at least one `{expr}` hole. Holes are parsed in place, so
// their nodes carry real source spans.
func (p *parser) parseStringTok(t token) Expr {
	sp := mkSpan(t.start, t.end)
	p.leaf(sp) // the string itself, or its last part
	q := 1
	if t.flags&fTriple != 0 {
		q = 3
	}
	bs, be := t.start+q, t.end-q
	if t.flags&fRawStr != 0 {
		p.pos = t.end
		body := p.src[bs:be]
		if q == 3 {
			body = dedentRaw(body)
		}
		return p.newStrLit(StrLit{Value: body, Raw: true, Span: sp})
	}
	if t.flags&fHasHole == 0 {
		p.pos = t.end
		return p.newStrLit(StrLit{Value: p.src[bs:be], Span: sp})
	}
	indent := 0
	lineStart := false
	if q == 3 {
		bs, be, indent = dedentRange(p.src, bs, be)
		lineStart = true
	}
	parts := &p.ar.partSeq
	mark := parts.mark()
	h := 1 // a literal part
	// The pending literal run is src[from:i] while it is verbatim; after an
	// escape or a dedent skip it moves to p.sbuf (buffered).
	src := p.src
	from, buffered := bs, false
	toBuf := func(i int) {
		if !buffered {
			p.sbuf = append(p.sbuf[:0], src[from:i]...)
			buffered = true
		}
	}
	lit := func(i int) string {
		if buffered {
			buffered = false
			return string(p.sbuf)
		}
		return src[from:i]
	}
	for i := bs; i < be; {
		if lineStart {
			lineStart = false
			j := i
			for k := 0; k < indent && j < be && (src[j] == ' ' || src[j] == '\t'); k++ {
				j++
			}
			if j > i {
				if !buffered && from == i {
					from = j // nothing pending: start the run after the indent
				} else {
					toBuf(i)
				}
				i = j
			}
			continue
		}
		switch c := src[i]; c {
		case '\\':
			toBuf(i)
			i += p.decodeEscape(i)
		case '{':
			if s := lit(i); s != "" {
				p.leaf(sp)
				parts.push(StrPart{Lit: s})
			}
			x, end := p.parseHole(i)
			p.node(p.h, x.Pos())
			h = max(h, p.h)
			parts.push(StrPart{X: x})
			i = end
			from = i
		case '\n':
			if buffered {
				p.sbuf = append(p.sbuf, c)
			}
			lineStart = q == 3
			i++
		default:
			if buffered {
				p.sbuf = append(p.sbuf, c)
			}
			i++
		}
	}
	p.pos = t.end
	last := lit(be)
	if parts.mark() == mark {
		return p.newStrLit(StrLit{Value: last, Span: sp})
	}
	if last != "" {
		p.leaf(sp)
		parts.push(StrPart{Lit: last})
	}
	p.node(h, sp)
	return p.newStrInterp(StrInterp{Parts: parts.take(mark), Span: sp})
}

// parseHole parses the interpolated expression whose `{` is at open and
// returns it with the offset after the closing `}`.
func (p *parser) parseHole(open int) (Expr, int) {
	saved := p.ctx
	p.ctx = pctx{ignoreNL: true}
	p.pos = open + 1
	if c := p.peek(); c.kind == tRBrace {
		p.fail(mkSpan(open, c.end), "an empty interpolation `{}`: braces in a \"…\" string hold an expression",
			"for literal braces write \\{\\} or use a raw string: '{}'", false)
	}
	x := p.parseExpr()
	c := p.peek()
	if c.kind != tRBrace {
		p.failTok(c, "expected `}` to close the interpolation, found "+p.describe(c),
			"an interpolation holds one expression; write \\{ for a literal brace")
	}
	p.ctx = saved
	return x, c.end
}

// decodeEscape appends the escape at src[i] (a backslash) to p.sbuf and
// returns its width.
func (p *parser) decodeEscape(i int) int {
	src := p.src
	if i+1 >= len(src) {
		p.fail(mkSpan(i, i+1), "unterminated escape",
			"the source ends inside an escape; finish it (as in \\n) and close the string", true)
	}
	switch c := src[i+1]; c {
	case 'n':
		p.sbuf = append(p.sbuf, '\n')
	case 't':
		p.sbuf = append(p.sbuf, '\t')
	case 'r':
		p.sbuf = append(p.sbuf, '\r')
	case '0':
		p.sbuf = append(p.sbuf, 0)
	case '\\', '"', '{', '}':
		p.sbuf = append(p.sbuf, c)
	case 'u':
		if i+2 < len(src) && src[i+2] == '{' {
			end := strings.IndexByte(src[i+3:], '}')
			if end > 0 && end <= 6 {
				hex := src[i+3 : i+3+end]
				v, err := strconv.ParseUint(hex, 16, 32)
				if err == nil && utf8.ValidRune(rune(v)) {
					p.sbuf = utf8.AppendRune(p.sbuf, rune(v))
					return 3 + end + 1
				}
			}
		}
		p.fail(mkSpan(i, i+2), "invalid unicode escape", "write \\u{HEX} with 1 to 6 hex digits naming a Unicode scalar", false)
	default:
		w := 1
		if c >= utf8.RuneSelf {
			_, w = utf8.DecodeRuneInString(src[i+1:])
		}
		p.fail(mkSpan(i, i+1+w), "unknown escape `\\"+src[i+1:i+1+w]+"` in string",
			"escapes: \\n \\t \\r \\0 \\\\ \\\" \\{ \\} \\u{…}; use a '...' string for literal backslashes", false)
	}
	return 2
}

// dedentRange trims a triple-quoted body [bs, be): it drops one leading
// newline and a final whitespace-only line, and returns the common
// indentation of the remaining non-blank lines.
func dedentRange(src string, bs, be int) (int, int, int) {
	if bs < be && src[bs] == '\n' {
		bs++
	} else if bs+1 < be && src[bs] == '\r' && src[bs+1] == '\n' {
		bs += 2
	}
	j := be
	for j > bs && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	if j == bs {
		be = bs
	} else if src[j-1] == '\n' {
		be = j - 1
		if be > bs && src[be-1] == '\r' {
			be--
		}
	}
	indent := -1
	lineBeg := bs
	for i := bs; i <= be; i++ {
		if i < be && src[i] != '\n' {
			continue
		}
		n := 0
		k := lineBeg
		for k < i && (src[k] == ' ' || src[k] == '\t') {
			k++
			n++
		}
		if k < i && src[k] != '\r' && (indent < 0 || n < indent) {
			indent = n
		}
		lineBeg = i + 1
	}
	if indent < 0 {
		indent = 0
	}
	return bs, be, indent
}

// dedentRaw applies triple-string dedent rules to a raw body.
func dedentRaw(body string) string {
	bs, be, indent := dedentRange(body, 0, len(body))
	if indent == 0 {
		return body[bs:be]
	}
	var b strings.Builder
	b.Grow(be - bs)
	lineStart := true
	for i := bs; i < be; i++ {
		if lineStart {
			lineStart = false
			for k := 0; k < indent && i < be && (body[i] == ' ' || body[i] == '\t'); k++ {
				i++
			}
			if i >= be {
				break
			}
		}
		b.WriteByte(body[i])
		if body[i] == '\n' {
			lineStart = true
		}
	}
	return b.String()
}
