package syntax

import "fmt"

// maxDepth bounds expression nesting so hostile input cannot exhaust the
// stack.
const maxDepth = 500

// parser is a recursive-descent parser over a position-addressed lexer. It
// keeps only a byte offset; every lookahead re-lexes at an offset in the mode
// the grammar position calls for.
type parser struct {
	src  string
	opts ParseOptions
	pos  int

	ctx   pctx
	depth int

	binds  []binding
	scopes []int

	// two-entry cache of expression-mode lookahead tokens
	cache [2]cacheEntry
	cnext uint8
}

type cacheEntry struct {
	pos    int
	skipNL bool
	valid  bool
	tok    token
}

// pctx holds the context flags that nested delimiters save and restore.
type pctx struct {
	ignoreNL   bool // inside ( [ or a record: newlines are insignificant
	noTrailing bool // in a for/while/if/match/with header: `{` is the body
	noLambda   bool // in a match guard: `x =>` is the arm arrow
	inArgs     bool // a command here stops at `,`
}

type bindKind uint8

const (
	bindValue bindKind = iota + 1
	bindCommand
)

type binding struct {
	name string
	kind bindKind
}

// bailout carries a parse error up the stack to Parse.
type bailout struct{ err *Error }

// Parse parses a Shoal source unit. The error, when non-nil, is an *Error.
func Parse(src string, opts ParseOptions) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(bailout); ok {
				prog, err = nil, b.err
				return
			}
			prog, err = nil, &Error{Msg: fmt.Sprintf("internal parser error: %v", r), Span: Span{0, len(src)}}
		}
	}()
	return parse(src, opts), nil
}

// parse parses src, reporting errors by panicking with a bailout.
func parse(src string, opts ParseOptions) *Program {
	p := &parser{src: src, opts: opts}
	return &Program{Stmts: p.parseStmts(false)}
}

// ---------------------------------------------------------------------------
// Errors

func (p *parser) fail(span Span, msg, hint string, incomplete bool) {
	panic(bailout{&Error{Msg: msg, Span: span, Hint: hint, Incomplete: incomplete}})
}

// failTok reports msg at t; an illegal token reports its own diagnostic and
// end of input marks the error incomplete.
func (p *parser) failTok(t token, msg string) {
	if t.kind == tIllegal {
		p.fail(Span{t.start, t.end}, t.diag.msg, t.diag.hint, t.diag.incomplete)
	}
	p.fail(Span{t.start, t.end}, msg, "", t.kind == tEOF)
}

// failHint is failTok with a hint.
func (p *parser) failHint(t token, msg, hint string) {
	if t.kind == tIllegal {
		p.fail(Span{t.start, t.end}, t.diag.msg, t.diag.hint, t.diag.incomplete)
	}
	p.fail(Span{t.start, t.end}, msg, hint, t.kind == tEOF)
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

// ---------------------------------------------------------------------------
// Token access

// peek returns the next expression-mode token, skipping newlines when the
// context ignores them.
func (p *parser) peek() token { return p.tokAt(p.pos, p.ctx.ignoreNL) }

// peekAt returns the expression-mode token at pos without skipping newlines.
func (p *parser) peekAt(pos int) token { return p.tokAt(pos, false) }

// peekPastNL returns the first non-newline token at or after pos.
func (p *parser) peekPastNL(pos int) token { return p.tokAt(pos, true) }

// tokAt lexes the expression-mode token at pos (optionally skipping
// newlines) through a small cache: the parser often asks the same question
// from several grammar rules.
func (p *parser) tokAt(pos int, skipNL bool) token {
	for i := range p.cache {
		if c := &p.cache[i]; c.valid && c.pos == pos && c.skipNL == skipNL {
			return c.tok
		}
	}
	t := lex(p.src, pos, exprMode)
	for skipNL && t.kind == tNewline {
		t = lex(p.src, t.end, exprMode)
	}
	p.cache[p.cnext] = cacheEntry{pos: pos, skipNL: skipNL, valid: true, tok: t}
	p.cnext ^= 1
	return t
}

func (p *parser) skipNL() {
	for {
		t := lex(p.src, p.pos, exprMode)
		if t.kind != tNewline {
			return
		}
		p.pos = t.end
	}
}

// expect consumes a token of kind k or fails.
func (p *parser) expect(k tokKind, what string) token {
	t := p.peek()
	if t.kind != k {
		p.failTok(t, "expected "+what+", found "+p.describe(t))
	}
	p.pos = t.end
	return t
}

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// enter guards recursion depth.
func (p *parser) enter(t token) {
	p.depth++
	if p.depth > maxDepth {
		p.fail(Span{t.start, t.end}, "expression nesting is too deep", "", false)
	}
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Binding scopes

func (p *parser) push() { p.scopes = append(p.scopes, len(p.binds)) }

func (p *parser) pop() {
	n := p.scopes[len(p.scopes)-1]
	p.scopes = p.scopes[:len(p.scopes)-1]
	p.binds = p.binds[:n]
}

func (p *parser) bind(name string, k bindKind) {
	if name == "" || name == "_" {
		return
	}
	p.binds = append(p.binds, binding{name, k})
}

func (p *parser) lookup(name string) bindKind {
	for i := len(p.binds) - 1; i >= 0; i-- {
		if p.binds[i].name == name {
			return p.binds[i].kind
		}
	}
	return 0
}

// valueBound reports whether a bare name at a statement head is a value.
func (p *parser) valueBound(name string) bool {
	switch p.lookup(name) {
	case bindValue:
		return true
	case bindCommand:
		return false
	}
	if p.opts.REPL && (name == "it" || name == "out") {
		return true
	}
	if p.opts.IsBound != nil && p.opts.IsBound(name) {
		return true
	}
	switch name {
	case "path", "glob", "regex":
		return true
	}
	return false
}

// replOnly reports whether name is the transcript name `it`/`out` used
// outside the REPL without a local binding.
func (p *parser) replOnly(name string) bool {
	return (name == "it" || name == "out") && !p.opts.REPL && p.lookup(name) == 0
}
