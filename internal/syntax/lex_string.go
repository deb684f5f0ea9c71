package syntax

import "strings"

// scanString finds the end of the string literal whose opening quote is at
// pos: double, single, triple-double or triple-single quoted. Interpolation holes in
// double-quoted strings are skipped with brace and nested-string awareness;
// their contents are parsed later by the parser.
func scanString(src string, pos int) token { return scanStringIn(src, pos, 0) }

// scanStringIn is scanString for a string nested inside the interpolation
// holes of depth enclosing strings. The nesting is bounded: the scan
// recurses, and each enclosing string's scan covers the nested ones again.
func scanStringIn(src string, pos, depth int) token {
	q := src[pos]
	if depth > maxStringNesting {
		return illegal(pos, pos+1, "strings nest too deeply inside interpolations",
			"bind the inner strings with let and interpolate the names")
	}
	if strings.HasPrefix(src[pos:], tripleOf(q)) {
		return scanTriple(src, pos, q, depth)
	}
	if q == '\'' {
		for i := pos + 1; i < len(src); i++ {
			switch src[i] {
			case '\'':
				return mkTokF(tStr, fRawStr, pos, i+1)
			case '\n':
				return newlineInString(pos, i)
			}
		}
		return unterminated(pos, len(src))
	}
	flags := uint8(0)
	for i := pos + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			flags |= fHasHole
			i++
			if i < len(src) && src[i] == '\n' {
				return newlineInString(pos, i)
			}
		case '"':
			return mkTokF(tStr, flags, pos, i+1)
		case '{':
			flags |= fHasHole
			end, bad := skipHole(src, i, false, depth)
			if bad != nil {
				return holeTrouble(*bad)
			}
			i = end - 1
		case '\n':
			return newlineInString(pos, i)
		}
	}
	return unterminated(pos, len(src))
}

// holeHint teaches that `{` in a double-quoted string opens an
// interpolation, the usual cause of a string that never closes around
// JSON or other brace-heavy text.
const holeHint = "`{` in a double-quoted string starts an interpolation; write `\\{` for a literal brace, or use a single-quoted string"

// holeTrouble is the error for an interpolation hole that never closed:
// the hole's own error, with a hint about literal braces.
func holeTrouble(t token) token {
	if t.diag != nil && strings.HasPrefix(t.diag.msg, "unterminated string") {
		d := *t.diag
		d.hint = holeHint
		t.diag = &d
	}
	return t
}

func tripleOf(q byte) string {
	if q == '"' {
		return `"""`
	}
	return `'''`
}

func newlineInString(start, at int) token {
	return illegal(start, at, "unterminated string (newline)",
		"a quoted string ends on its line; use \\n, or a \"\"\"...\"\"\" multiline string")
}

func unterminated(start, end int) token {
	t := illegal(start, end, "unterminated string", unterminatedHint)
	t.diag.incomplete = true
	return t
}

func scanTriple(src string, pos int, q byte, depth int) token {
	closer := tripleOf(q)
	flags := fTriple
	if q == '\'' {
		flags |= fRawStr
		i := strings.Index(src[pos+3:], closer)
		if i < 0 {
			return unterminated(pos, len(src))
		}
		return mkTokF(tStr, flags, pos, pos+3+i+3)
	}
	flags |= fHasHole
	for i := pos + 3; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			if strings.HasPrefix(src[i:], closer) {
				return mkTokF(tStr, flags, pos, i+3)
			}
		case '{':
			end, bad := skipHole(src, i, true, depth)
			if bad != nil {
				return *bad
			}
			i = end - 1
		}
	}
	return unterminated(pos, len(src))
}

// boxTok returns a pointer to a copy of t, so that only error paths pay
// for a heap token.
func boxTok(t token) *token { return &t }

// skipHole returns the offset just past the `}` closing the interpolation
// hole whose `{` is at pos, in a string nested depth deep.
func skipHole(src string, pos int, multiline bool, depth int) (int, *token) {
	braces := 0
	for i := pos; i < len(src); i++ {
		switch src[i] {
		case '{':
			braces++
		case '}':
			braces--
			if braces == 0 {
				return i + 1, nil
			}
		case '"', '\'':
			t := scanStringIn(src, i, depth+1)
			if t.kind == tIllegal {
				return 0, boxTok(t)
			}
			i = t.end - 1
		case '\n':
			if !multiline {
				t := newlineInString(pos, i)
				return 0, &t
			}
		}
	}
	t := unterminated(pos, len(src))
	return 0, &t
}
