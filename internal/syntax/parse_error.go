package syntax

// Error reporting: every parse error is raised through fail, which carries
// it to Parse as a bailout panic, and every error carries a hint.

// fail raises a parse error; Parse recovers it and returns it.
func (p *parser) fail(span Span, msg, hint string, incomplete bool) {
	if hint == "" {
		hint = fallbackHint
	}
	panic(bailout{&Error{Msg: msg, Span: span, Hint: hint, Incomplete: incomplete}})
}

// fallbackHint backs up an error site that has no hint of its own, so that
// every *Error carries one. Tests check that no known site relies on it.
const fallbackHint = "check the syntax at the marked position"

// failTok reports msg with hint at t. An illegal token reports its own
// diagnostic instead; end of input marks the error incomplete and says so in
// the hint.
func (p *parser) failTok(t token, msg, hint string) {
	if t.kind == tIllegal {
		p.fail(mkSpan(t.start, t.end), t.diag.msg, t.diag.hint, t.diag.incomplete)
	}
	if t.kind == tEOF {
		hint = eofHint(hint)
	}
	if t.kind == tIdent {
		// Where a word operator stops the parse, teach the operator.
		switch p.src[t.start:t.end] {
		case "and":
			msg, hint = "`and` is not shoal syntax: logical and is &&", "write a && b, as in .where(x => x.ok && x.size > 1mb)"
		case "or":
			msg, hint = "`or` is not shoal syntax: logical or is ||", "write a || b"
		}
	}
	p.fail(mkSpan(t.start, t.end), msg, hint, t.kind == tEOF)
}

// eofHint turns a hint for a missing token into one for input that ends
// early.
func eofHint(hint string) string {
	if hint == "" {
		return "the source ends before this is complete"
	}
	return "the source ends before this is complete; " + hint
}

// failSep reports a token that neither separates nor closes a delimited
// sequence of items (such as elements) inside a what (such as a list)
// closed by closer.
func (p *parser) failSep(t token, msg, items, what, closer string) {
	if t.kind == tEOF {
		p.fail(mkSpan(t.start, t.end), msg, "the source ends before the "+what+" is closed; close it with "+closer, true)
	}
	p.failTok(t, msg, "separate "+items+" with `,` and close the "+what+" with "+closer)
}

// describe names a token for "found X" messages.
func (p *parser) describe(t token) string {
	switch t.kind {
	case tIdent:
		return "Ident `" + p.src[t.start:t.end] + "`"
	case tWord:
		return "word `" + p.src[t.start:t.end] + "`"
	}
	if t.kind.isKeyword() {
		return "keyword `" + t.kind.String() + "`"
	}
	return t.kind.String()
}
