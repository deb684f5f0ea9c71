package syntax

import "fmt"

// parser is a recursive-descent parser over a position-addressed lexer. It
// keeps only a byte offset; every lookahead re-lexes at an offset in the mode
// the grammar position calls for.
type parser struct {
	src  string
	opts ParseOptions
	pos  int

	ctx    pctx
	depth  int  // parse functions nested (see enter), at most maxNesting
	h      int  // height of the subtree the last parse function built
	nodes  int  // nodes built so far, at most MaxNodes
	parsed bool // a parse has run since the last reset

	binds  []binding
	scopes []int
	byName map[string]int32 // see indexBindings; nil until the stack is long

	ar   arena
	sbuf []byte // scratch for decoding escaped string literals

	// direct-mapped cache of expression-mode tokens by lex position: the
	// grammar often asks for the same token from several rules.
	cache [tokCacheSize]cacheEntry
}

// tokCacheSize is the number of cached expression-mode tokens (a power of
// two).
const tokCacheSize = 64

// cacheEntry is a cached token without its diagnostic: illegal tokens are
// not cached, so entries hold no pointers and filling the cache needs no
// GC write barriers.
type cacheEntry struct {
	pos int // lex position; -1 marks an empty slot
	tok tokSpan
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
	prev int32 // with byName: the binding of the same name this one shadows, or -1
}

// bindIndexAt is the binding-stack length past which bindings are indexed
// by name: a linear scan is faster for the few names of most sources, and
// a map keeps a source of many names linear.
const bindIndexAt = 32

// bailout carries a parse error up the stack to Parse.
type bailout struct{ err *Error }

// Parse parses a Shoal source unit. The error, when non-nil, is an *Error.
// The returned tree is ordinary Go memory that lives as long as it is
// referenced.
func Parse(src string, opts ParseOptions) (*Program, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	return p.parseSafely(src, opts)
}

// Parser parses source units into trees that share memory the Parser keeps:
// each call to Parse clears and refills the node storage of the call
// before, so a tree (and every node in it) is valid only until the next
// call to Parse on the same Parser. In return, parsing in steady state
// allocates almost nothing, so it neither pays for nor triggers garbage
// collection. Use a Parser where a tree is read and dropped (syntax checks,
// AST serialisation); use the package-level Parse where any node may
// outlive the next parse, as the evaluator's closures do. A Parser must not
// be used by more than one goroutine at a time; the zero value is ready to
// use.
type Parser struct {
	p *parser
}

// Parse parses src like the package-level Parse, into memory that the next
// call on ps reuses. Until then ps keeps the tree and src reachable.
func (ps *Parser) Parse(src string, opts ParseOptions) (*Program, error) {
	if ps.p == nil {
		ps.p = new(parser)
		ps.p.clearCache()
		ps.p.ar.keep = true
	}
	ps.p.reset() // the previous tree's chunks are cleared only now
	return ps.p.parseSafely(src, opts)
}

// Reset ends the life of the last tree ps returned: its memory is cleared
// for the next Parse, and ps no longer keeps that tree or its source
// reachable. Call it before putting a Parser in a pool.
func (ps *Parser) Reset() {
	if ps.p != nil {
		ps.p.reset()
	}
}

// parseSafely parses src with p, turning a bailout into its *Error and any
// other panic into an internal-error *Error, so that no input panics a
// caller.
func (p *parser) parseSafely(src string, opts ParseOptions) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(bailout); ok {
				teachHabit(src, b.err)
				prog, err = nil, b.err
				return
			}
			prog, err = nil, &Error{Msg: fmt.Sprintf("internal parser error: %v", r), Span: mkSpan(0, len(src)),
				Hint: "this is a bug in the shoal parser; please report it with the source"}
		}
	}()
	if len(src) >= maxSource {
		return nil, &Error{Msg: "source is too large to parse", Span: Span{0, 0},
			Hint: "split the source into modules of under 2 GiB each"}
	}
	prog = p.parseProgram(src, opts)
	if opts.Comments {
		attachComments(src, prog)
	}
	return prog, nil
}

// parseProgram parses src, reporting errors by panicking with a bailout.
func (p *parser) parseProgram(src string, opts ParseOptions) *Program {
	p.src, p.opts, p.parsed = src, opts, true
	p.h, p.nodes = 0, 0
	p.ar.prepare(len(src))
	return &Program{Stmts: p.parseStmts(false)}
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

// tokAt returns the expression-mode token at pos, optionally skipping
// newlines.
func (p *parser) tokAt(pos int, skipNL bool) token {
	var t token
	if c := &p.cache[pos&(tokCacheSize-1)]; c.pos == pos {
		t = token{tokSpan: c.tok} // hit path of lexAt, inlined by hand
	} else {
		t = p.lexMiss(pos)
	}
	if skipNL && t.kind == tNewline {
		return p.pastNL(t)
	}
	return t
}

// pastNL returns the first token after the newline token t that is not a
// newline.
func (p *parser) pastNL(t token) token {
	for t.kind == tNewline {
		t = p.lexAt(t.end)
	}
	return t
}

// lexAt lexes the expression-mode token at pos through the token cache.
func (p *parser) lexAt(pos int) token {
	if c := &p.cache[pos&(tokCacheSize-1)]; c.pos == pos {
		return token{tokSpan: c.tok}
	}
	return p.lexMiss(pos)
}

func (p *parser) lexMiss(pos int) token {
	t := lexExprAt(p.src, pos)
	if t.diag == nil {
		p.cache[pos&(tokCacheSize-1)] = cacheEntry{pos: pos, tok: t.tokSpan}
	}
	return t
}

func (p *parser) skipNL() {
	for {
		t := p.lexAt(p.pos)
		if t.kind != tNewline {
			return
		}
		p.pos = t.end
	}
}

// expect consumes a token of kind k or fails with hint.
func (p *parser) expect(k tokKind, what, hint string) token {
	t := p.peek()
	if t.kind != k {
		p.failTok(t, "expected "+what+", found "+p.describe(t), hint)
	}
	p.pos = t.end
	return t
}

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// enter guards the parser's own recursion depth.
func (p *parser) enter(t token) {
	p.depth++
	if p.depth > maxNesting {
		p.fail(mkSpan(t.start, t.end), "expression nesting is too deep", "split the expression into smaller parts with let bindings", false)
	}
}

func (p *parser) leave() { p.depth-- }

// Tree bounds. Every parse function that builds a node reports it through
// node (or leaf), which counts it against MaxNodes, checks its height
// against MaxDepth and leaves the height in p.h for the caller, which
// combines its children's heights into its own. A function that returns a
// run of nodes (statements, arguments) leaves their greatest height in p.h
// (0 for none); one that wraps nothing (parentheses) leaves p.h as its
// operand set it.

// node records a node at span sp whose tallest child has height child.
func (p *parser) node(child int, sp Span) {
	p.nodes++
	p.h = child + 1
	if p.h > MaxDepth || p.nodes > MaxNodes {
		p.tooBig(sp)
	}
}

// leaf records a node without children at span sp.
func (p *parser) leaf(sp Span) {
	p.nodes++
	p.h = 1
	if p.nodes > MaxNodes {
		p.tooBig(sp)
	}
}

// tooBig fails because the node at sp, of height p.h, makes the tree too
// deep or the source too large.
func (p *parser) tooBig(sp Span) {
	if p.h > MaxDepth {
		p.fail(sp, fmt.Sprintf("expression is nested too deeply (more than %d levels)", MaxDepth),
			"break long chains such as a + b + …, x.f().g()… or else if … into steps with let bindings", false)
	}
	p.fail(mkSpan(int(sp.Start), int(sp.Start)), fmt.Sprintf("source is too large to parse (more than %d syntax nodes)", MaxNodes),
		"split the source into smaller units and send them one at a time", false)
}

// ---------------------------------------------------------------------------
// Binding scopes

func (p *parser) push() { p.scopes = append(p.scopes, len(p.binds)) }

func (p *parser) pop() {
	n := p.scopes[len(p.scopes)-1]
	p.scopes = p.scopes[:len(p.scopes)-1]
	if p.byName != nil {
		for i := len(p.binds) - 1; i >= n; i-- {
			if b := p.binds[i]; b.prev >= 0 {
				p.byName[b.name] = b.prev
			} else {
				delete(p.byName, b.name)
			}
		}
	}
	p.binds = p.binds[:n]
}

func (p *parser) bind(name string, k bindKind) {
	if name == "" || name == "_" {
		return
	}
	// A name bound again in the same scope replaces its binding, so that
	// long scripts that rebind names keep the lookup stack short.
	base := 0
	if n := len(p.scopes); n > 0 {
		base = p.scopes[n-1]
	}
	if p.byName != nil {
		i, ok := p.byName[name]
		if ok && int(i) >= base {
			p.binds[i].kind = k
			return
		}
		if !ok {
			i = -1
		}
		p.byName[name] = int32(len(p.binds))
		p.binds = append(p.binds, binding{name, k, i})
		return
	}
	for i := len(p.binds) - 1; i >= base; i-- {
		if p.binds[i].name == name {
			p.binds[i].kind = k
			return
		}
	}
	p.binds = append(p.binds, binding{name, k, -1})
	if len(p.binds) > bindIndexAt {
		p.indexBindings()
	}
}

// indexBindings starts indexing the binding stack by name, so binding and
// looking up a name no longer scan it.
func (p *parser) indexBindings() {
	p.byName = make(map[string]int32, 2*len(p.binds))
	for i := range p.binds {
		b := &p.binds[i]
		b.prev = -1
		if j, ok := p.byName[b.name]; ok {
			b.prev = j
		}
		p.byName[b.name] = int32(i)
	}
}

func (p *parser) lookup(name string) bindKind {
	if p.byName != nil {
		if i, ok := p.byName[name]; ok {
			return p.binds[i].kind
		}
		return 0
	}
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
	case "path", "glob", "regex", "now", "today":
		// Constructors and clock values: `now - today` is arithmetic, not a
		// command named now with arguments.
		return true
	}
	return false
}

// replOnly reports whether name is the transcript name `it`/`out` used
// outside the REPL without a local binding.
func (p *parser) replOnly(name string) bool {
	return (name == "it" || name == "out") && !p.opts.REPL && p.lookup(name) == 0
}
