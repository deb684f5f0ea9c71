package syntax

import (
	"unicode"
	"unicode/utf8"
)

// mode selects how the lexer reads the bytes at a position. The lexer is
// position-addressed: it holds no cursor, so the parser can ask for the
// token at any offset in either mode and rewind freely.
type mode uint8

const (
	exprMode   mode = iota // expression tokens
	cmdMode                // command words, flags, redirects
	cmdArgMode             // command mode inside call arguments: ',' ends a word
)

// lex returns the token starting at (or after trivia following) pos.
func lex(src string, pos int, m mode) token {
	for pos < len(src) && src[pos] == ' ' {
		pos++ // the common case of trivia, without a call
	}
	if pos < len(src) && isTriviaStart(src[pos]) {
		var bad *token
		if pos, bad = skipTrivia(src, pos); bad != nil {
			return *bad
		}
	}
	if pos >= len(src) {
		return mkTok(tEOF, pos, pos)
	}
	if m == exprMode {
		return lexExpr(src, pos)
	}
	return lexCmd(src, pos, m == cmdArgMode)
}

// lexExprAt is lex(src, pos, exprMode) with the common cases first: after
// plain spaces, a name is lexed at once and any other token that does not
// start trivia goes straight to lexExpr.
func lexExprAt(src string, pos int) token {
	for pos < len(src) && src[pos] == ' ' {
		pos++
	}
	if pos < len(src) {
		c := src[pos]
		if isIdentStartByte(c) {
			return lexWord(src, pos, 1)
		}
		if !isTriviaStart(c) {
			return lexExpr(src, pos)
		}
	}
	return lex(src, pos, exprMode)
}

// isTriviaStart reports whether trivia (other than a plain space) may start
// with c.
func isTriviaStart(c byte) bool { return c == '\t' || c == '\r' || c == '#' || c == '\\' || c == ' ' }

// skipTrivia skips spaces, tabs, carriage returns, `#` comments and
// backslash-newline continuations, but not newlines.
func skipTrivia(src string, pos int) (int, *token) {
	for pos < len(src) {
		switch src[pos] {
		case ' ', '\t', '\r':
			pos++
		case '#':
			for pos < len(src) && src[pos] != '\n' {
				pos++
			}
		case '\\':
			if pos+1 < len(src) && src[pos+1] == '\n' {
				pos += 2
				continue
			}
			if pos+2 < len(src) && src[pos+1] == '\r' && src[pos+2] == '\n' {
				pos += 3
				continue
			}
			if pos+1 == len(src) {
				t := illegal(pos, pos+1, "unexpected end of input after line-continuation `\\`",
					"a trailing `\\` continues onto the next line; add that line or remove the `\\`")
				t.diag.incomplete = true
				return pos, &t
			}
			return pos, nil
		default:
			return pos, nil
		}
	}
	return pos, nil
}

// unterminatedHint is the hint of a string that runs to the end of input.
const unterminatedHint = "the source ends before the string is closed; add the closing quote"

func illegal(start, end int, msg, hint string) token {
	return token{tokSpan: tokSpan{kind: tIllegal, start: start, end: end}, diag: &diag{msg: msg, hint: hint}}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStartByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentByte(c byte) bool { return identBytes[c] }

// identBytes marks the ASCII bytes that may continue an identifier.
var identBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isIdentStartByte(byte(c)) || isDigit(byte(c))
	}
	return t
}()

// identStartAt reports whether an identifier starts at pos and the width of
// its first character.
func identStartAt(src string, pos int) (bool, int) {
	if pos >= len(src) {
		return false, 0
	}
	c := src[pos]
	if c < utf8.RuneSelf {
		return isIdentStartByte(c), 1
	}
	r, w := utf8.DecodeRuneInString(src[pos:])
	return unicode.IsLetter(r), w
}

// scanIdent returns the end of the identifier starting at pos.
func scanIdent(src string, pos int) int {
	for pos < len(src) {
		c := src[pos]
		if c < utf8.RuneSelf {
			if !isIdentByte(c) {
				return pos
			}
			pos++
			continue
		}
		r, w := utf8.DecodeRuneInString(src[pos:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return pos
		}
		pos += w
	}
	return pos
}

func lexExpr(src string, pos int) token {
	c := src[pos]
	if isIdentStartByte(c) {
		return lexWord(src, pos, 1)
	}
	tk := func(k tokKind, w int) token { return mkTok(k, pos, pos+w) }
	at := func(i int) byte {
		if pos+i < len(src) {
			return src[pos+i]
		}
		return 0
	}
	switch exprPunct[c] {
	case pNewline: // '\n'
		return tk(tNewline, 1)
	case pSemi: // ';'
		return tk(tSemi, 1)
	case pComma: // ','
		return tk(tComma, 1)
	case pColon: // ':'
		return tk(tColon, 1)
	case pLParen: // '('
		return tk(tLParen, 1)
	case pRParen: // ')'
		return tk(tRParen, 1)
	case pLBracket: // '['
		return tk(tLBracket, 1)
	case pRBracket: // ']'
		return tk(tRBracket, 1)
	case pLBrace: // '{'
		return tk(tLBrace, 1)
	case pRBrace: // '}'
		return tk(tRBrace, 1)
	case pDot: // '.'
		if at(1) == '.' {
			if at(2) == '.' {
				return tk(tEllipsis, 3)
			}
			if at(2) == '=' {
				return tk(tDotDotEq, 3)
			}
			return tk(tDotDot, 2)
		}
		return tk(tDot, 1)
	case pQuestion: // '?'
		if at(1) == '.' {
			return tk(tQDot, 2)
		}
		if at(1) == '?' {
			return tk(tQQ, 2)
		}
	case pMinus: // '-'
		if at(1) == '>' {
			return tk(tArrow, 2)
		}
		if at(1) == '=' {
			return tk(tMinusEq, 2)
		}
		return tk(tMinus, 1)
	case pEq: // '='
		if at(1) == '=' {
			return tk(tEq, 2)
		}
		if at(1) == '>' {
			return tk(tFatArrow, 2)
		}
		return tk(tAssign, 1)
	case pPlus: // '+'
		if at(1) == '=' {
			return tk(tPlusEq, 2)
		}
		return tk(tPlus, 1)
	case pStar: // '*'
		if at(1) == '=' {
			return tk(tStarEq, 2)
		}
		return tk(tStar, 1)
	case pSlash: // '/'
		if at(1) == '=' {
			return tk(tSlashEq, 2)
		}
		return tk(tSlash, 1)
	case pPercent: // '%'
		return tk(tPercent, 1)
	case pBang: // '!'
		if at(1) == '=' {
			return tk(tNe, 2)
		}
		return tk(tBang, 1)
	case pLt: // '<'
		if at(1) == '=' {
			return tk(tLe, 2)
		}
		return tk(tLt, 1)
	case pGt: // '>'
		if at(1) == '=' {
			return tk(tGe, 2)
		}
		return tk(tGt, 1)
	case pAmp: // '&'
		if at(1) == '&' {
			return tk(tAndAnd, 2)
		}
		return tk(tAmp, 1)
	case pPipe: // '|'
		if at(1) == '|' {
			return tk(tOrOr, 2)
		}
		return tk(tPipe, 1)
	case pCaret: // '^'
		return tk(tCaret, 1)
	case pDollar: // '$'
		return sigilError(src, pos)
	case pBacktick: // '`'
		return backtickError(pos)
	case pQuote: // '"', '\''
		return scanString(src, pos)
	}
	if isDigit(c) {
		return scanNumber(src, pos)
	}
	if ok, w := identStartAt(src, pos); ok {
		return lexWord(src, pos, w)
	}
	r, w := utf8.DecodeRuneInString(src[pos:])
	if r == utf8.RuneError && w <= 1 {
		return illegal(pos, pos+1, "unexpected character: invalid UTF-8 byte", "shoal source must be UTF-8 text")
	}
	return illegal(pos, pos+w, "unexpected character `"+string(r)+"`",
		"this character has no meaning here; quote it to use it as text")
}

// The classes of the bytes that start a punctuation, string or error
// token in expression mode, which lexExpr dispatches on.
const (
	pNone uint8 = iota
	pNewline
	pSemi
	pComma
	pColon
	pLParen
	pRParen
	pLBracket
	pRBracket
	pLBrace
	pRBrace
	pDot
	pQuestion
	pMinus
	pEq
	pPlus
	pStar
	pSlash
	pPercent
	pBang
	pLt
	pGt
	pAmp
	pPipe
	pCaret
	pDollar
	pBacktick
	pQuote
)

// exprPunct classes each byte for lexExpr's dispatch (pNone for any other
// byte): a switch on the dense classes compiles to one jump through a
// table, where one on the sparse bytes was a chain of about five compares.
var exprPunct = func() (t [256]uint8) {
	t['\n'] = pNewline
	t[';'] = pSemi
	t[','] = pComma
	t[':'] = pColon
	t['('] = pLParen
	t[')'] = pRParen
	t['['] = pLBracket
	t[']'] = pRBracket
	t['{'] = pLBrace
	t['}'] = pRBrace
	t['.'] = pDot
	t['?'] = pQuestion
	t['-'] = pMinus
	t['='] = pEq
	t['+'] = pPlus
	t['*'] = pStar
	t['/'] = pSlash
	t['%'] = pPercent
	t['!'] = pBang
	t['<'] = pLt
	t['>'] = pGt
	t['&'] = pAmp
	t['|'] = pPipe
	t['^'] = pCaret
	t['$'] = pDollar
	t['`'] = pBacktick
	t['"'] = pQuote
	t['\''] = pQuote
	return t
}()

// lexWord lexes the identifier, keyword or tagged string (t"...", re"...")
// starting at pos with a first character w bytes wide. ASCII names, the
// common case, are scanned inline.
func lexWord(src string, pos, w int) token {
	end := pos + w
	for end < len(src) && isIdentByte(src[end]) {
		end++
	}
	if end < len(src) && src[end] >= utf8.RuneSelf {
		end = scanIdent(src, end)
	}
	if end < len(src) && src[end] == '"' && (end-pos == 1 && src[pos] == 't' || end-pos == 2 && src[pos:end] == "re") {
		return scanTagged(src, pos, end)
	}
	return mkTok(keywordKind(src[pos:end]), pos, end)
}

func sigilError(src string, pos int) token {
	end := pos + 1
	if ok, _ := identStartAt(src, end); ok {
		end = scanIdent(src, end)
	}
	name := src[pos+1 : end]
	hint := "variables are plain names; write `name`, or `env.NAME` for an environment variable"
	if name != "" {
		hint = "write `" + name + "`, or `env." + name + "` for an environment variable"
	}
	return illegal(pos, end, "`$` is not shoal syntax: variables have no sigil", hint)
}

func backtickError(pos int) token {
	return illegal(pos, pos+1, "backtick is not shoal syntax",
		"capture a command with `(cmd args)`, or use `sh { ... }` for POSIX source")
}

// scanTagged scans `t"..."` or `re"..."`; q is the offset of the quote.
// The body is raw: backslashes are kept, `\"` does not end it.
func scanTagged(src string, start, q int) token {
	kind := tDateTime
	if q-start == 2 {
		kind = tRegex
	}
	for i := q + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return mkTok(kind, start, i+1)
		case '\n':
			return illegal(start, i, "unterminated string (newline)", "close the quote on the same line")
		}
	}
	t := illegal(start, len(src), "unterminated string", unterminatedHint)
	t.diag.incomplete = true
	return t
}
