package syntax

// lexCmd scans one command-mode token at pos (trivia already skipped).
func lexCmd(src string, pos int, stopComma bool) token {
	c := src[pos]
	tk := func(k tokKind, w int) token { return mkTok(k, pos, pos+w) }
	at := func(i int) byte {
		if pos+i < len(src) {
			return src[pos+i]
		}
		return 0
	}
	switch c {
	case '\n':
		return tk(tNewline, 1)
	case ';':
		return tk(tSemi, 1)
	case '(':
		return tk(tLParen, 1)
	case ')':
		return tk(tRParen, 1)
	case '{':
		return tk(tLBrace, 1)
	case '}':
		return tk(tRBrace, 1)
	case ']':
		return illegal(pos, pos+1, "unexpected `]`", "quote it ('...') to pass a literal bracket")
	case '[':
		// `[ab].txt` is a glob character class; anything else is an error.
		for i := pos + 1; i < len(src); i++ {
			switch src[i] {
			case ']':
				if i > pos+1 {
					return scanWord(src, pos, stopComma)
				}
			case ' ', '\t', '\n', '\r', ',', ';', '(', ')':
				i = len(src)
			}
		}
		return illegal(pos, pos+1, "`[` cannot start a command argument",
			"quote it, or pass a list with (expr); mid-word [ranges] in globs are fine")
	case '|':
		if at(1) == '|' {
			return tk(tOrOr, 2)
		}
		return pipeError(pos)
	case '&':
		if at(1) == '&' {
			return tk(tAndAnd, 2)
		}
		if at(1) == '>' {
			end := pos + 2
			if at(2) == '>' {
				end++
			}
			return illegal(pos, end, "no stream-merging redirect: `&>` is not shoal syntax",
				"outcomes keep stdout and stderr apart; read (cmd).out and (cmd).err")
		}
		return tk(tAmp, 1)
	case '>':
		if at(1) == '>' {
			return tk(tAppend, 2)
		}
		if at(1) == '&' {
			return illegal(pos, pos+2, "no fd-numbered redirects: `>&` is not shoal syntax",
				"read (cmd).err for stderr; use sh { ... } for POSIX redirections")
		}
		return tk(tGt, 1)
	case '<':
		if at(1) == '<' {
			if at(2) == '<' {
				return illegal(pos, pos+3, "no here-strings: `<<<` is not shoal syntax",
					"feed a value to a command with \"text\".feed(cmd)")
			}
			return illegal(pos, pos+2, "no heredocs: `<<` is not shoal syntax",
				"use a \"\"\"...\"\"\" string and .feed(cmd)")
		}
		return tk(tLt, 1)
	case '"', '\'':
		return scanString(src, pos)
	case '$':
		return sigilError(src, pos)
	case '`':
		return backtickError(pos)
	case ',':
		if stopComma {
			return tk(tComma, 1)
		}
	case '-':
		return scanDashed(src, pos, stopComma)
	}
	return scanWord(src, pos, stopComma)
}

func pipeError(pos int) token {
	return illegal(pos, pos+1, "no pipe operator: `|` is not shoal syntax",
		"chain methods on the value, or pass data to a command with .feed(cmd)")
}

// isWordStop reports whether c ends a command word.
func isWordStop(c byte, stopComma bool) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '(', ')', '|', '&', '<', '>', '"', '\'':
		return true
	case ',':
		return stopComma
	}
	return false
}

// scanWord scans a bare command word. `{`...`}` pairs inside a word are kept
// (stash@{0}); an unmatched `}` ends it.
func scanWord(src string, pos int, stopComma bool) token {
	start := pos
	flags := uint8(0)
	depth := 0
	allDigits := true
loop:
	for pos < len(src) {
		c := src[pos]
		if isWordStop(c, stopComma) {
			break
		}
		switch c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				break loop
			}
			depth--
		case '*', '?', '[':
			flags |= fGlob
		case '$':
			return sigilError(src, pos)
		case '`':
			return backtickError(pos)
		case '\\':
			if pos+1 >= len(src) || src[pos+1] == '\n' ||
				(src[pos+1] == '\r' && pos+2 < len(src) && src[pos+2] == '\n') {
				break loop
			}
			flags |= fEscape
			pos++
		}
		if !isDigit(c) {
			allDigits = false
		}
		pos++
	}
	if allDigits && pos < len(src) && pos > start && (src[pos] == '>' || src[pos] == '<') {
		end := pos + 1
		if end < len(src) && src[end] == '>' {
			end++
		}
		return illegal(start, end, "no fd-numbered redirects: `"+src[start:end]+"` is not shoal syntax",
			"read (cmd).err for stderr; put a space before > to redirect a digit argument")
	}
	if pos < len(src) && pos > start && (src[pos] == '"' || src[pos] == '\'') && src[pos-1] != '=' {
		return illegal(start, pos+1, "a quote cannot continue a bare word",
			"quote the whole argument: \""+src[start:pos]+"...\"")
	}
	return mkTokF(tWord, flags, start, pos)
}

// scanDashed scans `-`, `--`, `--name`, `-abc`, or a negative number word.
func scanDashed(src string, pos int, stopComma bool) token {
	n := len(src)
	stop := func(i int) bool { return i >= n || isWordStop(src[i], stopComma) || src[i] == '}' }
	if stop(pos + 1) {
		return mkTok(tDash, pos, pos+1)
	}
	if src[pos+1] == '-' {
		if stop(pos + 2) {
			return mkTok(tDashDash, pos, pos+2)
		}
		i := pos + 2
		for i < n && !stop(i) && src[i] != '=' {
			if src[i] == '$' {
				return sigilError(src, i)
			}
			if src[i] == '`' {
				return backtickError(i)
			}
			i++
		}
		return mkTok(tLongFlag, pos, i)
	}
	if isDigit(src[pos+1]) || src[pos+1] == '.' {
		return scanWord(src, pos, stopComma)
	}
	t := scanWord(src, pos, stopComma)
	if t.kind == tWord && t.flags == 0 {
		t.kind = tShortFlag
	}
	return t
}
