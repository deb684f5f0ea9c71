package syntax

import "strings"

// TokenClass is what a highlighter shows a token as.
type TokenClass uint8

// Token classes, from the lexer's kinds and the position of a token (a
// command head, a method name after a dot).
const (
	ClassPlain    TokenClass = iota // names, words and anything unclassified
	ClassKeyword                    // let, fn, if, for, ...
	ClassLiteral                    // true, false, null
	ClassCommand                    // the head of a command call
	ClassString                     // strings, tagged strings, regexes
	ClassNumber                     // numbers, sizes, durations, times, datetimes
	ClassFlag                       // --long and -s flags of a command
	ClassOperator                   // operators and punctuation
	ClassMethod                     // a name after `.` or `?.`
	ClassComment                    // a `#` comment
	ClassError                      // a token the lexer rejects
	ClassVariable                   // a value-bound name (as isBound tells)
	ClassPath                       // a command word that is a path (./x, ../x, /x, ~/x)
	numClasses
)

// NumClasses is how many token classes there are (for tables indexed by
// class).
const NumClasses = int(numClasses)

// Token is one classified range of a source: bytes [Start, End).
type Token struct {
	Class      TokenClass
	Start, End int
}

// Tokens classifies src for highlighting with the same lexer the parser
// uses, in the mode the parser would read each part in: a statement whose
// head is a name that isBound does not report (nil: none) is a command,
// its words read in command mode until the statement ends. It never
// fails: input the lexer rejects is ClassError, an unterminated string
// ClassString. The tokens are in order, do not overlap, and lie within
// src; gaps between them are spaces.
func Tokens(src string, isBound func(string) bool) []Token {
	if len(src) > MaxTokenSource {
		return []Token{{ClassPlain, 0, len(src)}}
	}
	return tokenize(src, isBound)
}

// tokenize is Tokens without the size bound, for callers that bound the
// source themselves (comment collection runs on a source the parser took).
func tokenize(src string, isBound func(string) bool) []Token {
	t := tokenizer{src: src, isBound: isBound, head: true}
	t.run()
	return t.out
}

type tokenizer struct {
	src     string
	isBound func(string) bool
	out     []Token
	mode    mode
	head    bool   // the next token starts a statement
	stack   []mode // the mode to return to at each open bracket
	depth   int    // open brackets, tracked or not
	prevDot bool   // the last token was `.` or `?.`
	caret   bool   // the last token was the `^` of a command head
}

func (t *tokenizer) emit(c TokenClass, start, end int) {
	t.out = append(t.out, Token{c, start, end})
}

func (t *tokenizer) run() {
	src := t.src
	for pos := 0; pos < len(src); {
		// Comments are trivia to the lexer; a highlighter shows them.
		p := pos
		for p < len(src) && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r') {
			p++
		}
		if p < len(src) && src[p] == '#' {
			e := p
			for e < len(src) && src[e] != '\n' {
				e++
			}
			t.emit(ClassComment, p, e)
			pos = e
			continue
		}
		m := t.mode
		if m == exprMode || t.head {
			m = exprMode
		}
		tok := lex(src, pos, m)
		if tok.kind == tEOF || tok.end <= pos || tok.start < pos {
			if tok.kind != tEOF && pos < len(src) {
				// No progress: classify one byte and go on.
				t.emit(ClassError, pos, pos+1)
				pos++
				continue
			}
			return
		}
		t.classify(tok)
		pos = tok.end
	}
}

// classify emits tok's class and moves the mode along.
func (t *tokenizer) classify(tok token) {
	src := t.src
	k := tok.kind
	wasHead, wasDot, wasCaret := t.head, t.prevDot, t.caret
	t.head, t.prevDot, t.caret = false, false, false
	class := ClassOperator
	switch {
	case k == tIdent && wasHead && t.commandHead(tok):
		class = ClassCommand
		t.mode = cmdMode
	case (k == tIdent || k == tWord) && wasCaret:
		class = ClassCommand
	case k == tCaret && wasHead:
		class = ClassCommand
		t.mode = cmdMode
		t.caret = true
	case k == tIdent && wasDot:
		class = ClassMethod
	case k == tIdent && t.isBound != nil && t.isBound(src[tok.start:tok.end]):
		class = ClassVariable
	case k == tWord && pathWord(src[tok.start:tok.end]):
		class = ClassPath
	case k == tIdent || k == tWord:
		class = ClassPlain
	case k == kwTrue || k == kwFalse || k == kwNull:
		class = ClassLiteral
	case k.isKeyword():
		class = ClassKeyword
		if k == kwElse || k == kwTry || k == kwCatch {
			t.head = false
		}
	case k == tInt || k == tFloat || k == tSize || k == tDuration || k == tTime || k == tDateTime:
		class = ClassNumber
	case k == tStr || k == tRegex:
		class = ClassString
	case k == tLongFlag || k == tShortFlag || k == tDashDash:
		class = ClassFlag
	case k == tIllegal:
		class = ClassError
		if c := src[tok.start]; c == '"' || c == '\'' {
			class = ClassString // a string still being typed
		}
	case k == tDot || k == tQDot:
		t.prevDot = true
	}
	switch k {
	case tNewline, tSemi, tAndAnd, tOrOr:
		t.head = true
		t.mode = exprMode
	case tLParen, tLBracket, tLBrace:
		if t.depth < maxTokenNesting {
			t.stack = append(t.stack, t.mode)
		}
		t.depth++
		t.mode = exprMode
		t.head = k != tLBracket // a block, or a command in parentheses
	case tRParen, tRBracket, tRBrace:
		if t.depth > 0 {
			if t.depth <= maxTokenNesting && len(t.stack) > 0 {
				t.mode = t.stack[len(t.stack)-1]
				t.stack = t.stack[:len(t.stack)-1]
			}
			t.depth--
		}
	}
	t.emit(class, tok.start, tok.end)
}

// pathWord reports a command word written as a path.
func pathWord(w string) bool {
	return w == "." || w == ".." || w == "~" || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") ||
		strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/")
}

// commandHead reports whether the identifier at a statement's head starts
// a command: it is not bound to a value and is followed by a space, the
// end of the statement or of the source.
func (t *tokenizer) commandHead(tok token) bool {
	name := t.src[tok.start:tok.end]
	if name == "it" || name == "out" {
		return false
	}
	if t.isBound != nil && t.isBound(name) {
		return false
	}
	if tok.end >= len(t.src) {
		return true
	}
	switch t.src[tok.end] {
	case ' ', '\t', '\n', '\r', ';':
		return true
	}
	return false
}
