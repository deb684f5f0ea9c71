package syntax

// ParseOptions tunes how a source unit is parsed.
type ParseOptions struct {
	// IsBound reports whether a name is value-bound in the scope the source
	// will run in (session variables). A bare identifier at a statement head
	// that is value-bound parses as an expression; otherwise as a command.
	// Names bound by let/var/for/params/patterns inside the source itself are
	// tracked by the parser. nil means nothing is bound.
	IsBound func(name string) bool
	// REPL permits `it`, `out` and a leading `.` continuing from `it`.
	REPL bool
	// Comments keeps the source's `#` comments in Program.Comments, each
	// attached to a node (comments.go). Off, the parser does no work for
	// them and every tree is as it always was; a formatter or an editor
	// turns it on.
	Comments bool
}

// Error is a parse error: a message, the span it concerns, an optional hint,
// and whether more input could complete the source (an unclosed bracket,
// string or block, a trailing binary operator), so that REPLs and agents can
// tell "keep typing" from "wrong".
type Error struct {
	Msg        string
	Span       Span
	Hint       string
	Incomplete bool
}

func (e *Error) Error() string {
	if e.Hint != "" {
		return e.Msg + " (hint: " + e.Hint + ")"
	}
	return e.Msg
}
