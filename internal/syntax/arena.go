package syntax

import "unsafe"

// The parser allocates AST nodes and node slices from per-parse chunks
// rather than one heap object each: a 10 kB script has thousands of nodes,
// and chunking turns those into a few dozen allocations. Chunks are owned by
// the finished AST (a node pointer keeps its chunk alive), so nothing is
// reused across parses and the returned tree is ordinary Go memory.

// Chunks hold at least minChunk elements and at most about maxChunkBytes.
const (
	minChunk      = 4
	maxChunkBytes = 8 << 10
)

// nextChunk returns the capacity of the chunk after one of capacity c for
// elements of size bytes, at least need: it doubles up to maxChunkBytes.
func nextChunk(c, size, need int) int {
	n := min(max(2*c, minChunk), max(maxChunkBytes/max(size, 1), minChunk))
	return max(n, need)
}

// slab hands out *T from chunks sized by how many the parse has needed so
// far and how much source is left, so that little of the last chunk goes
// unused.
type slab[T any] struct {
	buf  []T
	used int // elements handed out from earlier chunks
	last int // elements the parser's previous parse used, to size the first chunk
}

// recycle empties s for the next parse, remembering how many elements this
// parse used.
func (s *slab[T]) recycle() {
	s.last = s.used + len(s.buf)
	s.buf, s.used = nil, 0
}

// next returns the address of a fresh zeroed slot in p's slab s. The
// typed constructors in arena_nodes.go fill it.
func next[T any](p *parser, s *slab[T]) *T {
	if len(s.buf) == cap(s.buf) {
		s.used += len(s.buf)
		var zero T
		s.buf = make([]T, 0, p.chunkSize(s.used, s.last, int(unsafe.Sizeof(zero))))
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// chunkSize projects how many more elements of a kind the parse will need,
// clamped to [minChunk, maxChunkBytes/size]: from how many it has used so far
// in the source consumed or, for the first chunk, from how many the
// parser's previous parse used (last) in its source of lastLen bytes. A
// parser that is fed similar sources so needs about one chunk per kind.
func (p *parser) chunkSize(used, last, size int) int {
	hi := max(maxChunkBytes/max(size, 1), minChunk)
	rest := int64(max(len(p.src)-p.pos, 0))
	var est int64
	switch {
	case used > 0:
		est = int64(used)*rest/int64(max(p.pos, 1)) + 1
	case last > 0 && p.ar.lastLen > 0:
		est = int64(last)*rest/int64(p.ar.lastLen) + 1
	default:
		return minChunk
	}
	return int(min(max(est, minChunk), int64(hi)))
}

// seq builds slices of T. Elements are pushed on a shared scratch stack
// (nested constructs push above their parent's elements and take them off
// before the parent pushes again); take copies the finished run into a
// chunk and returns it with its capacity clipped, so appending to a result
// never writes into a neighbour.
type seq[T any] struct {
	stack []T
	chunk []T
	taken int // elements taken this parse
	last  int // elements taken by the parser's previous parse
	hint  int // first chunk capacity projected from last at parse start
}

// mark returns the stack height at which a new run starts.
func (s *seq[T]) mark() int { return len(s.stack) }

func (s *seq[T]) push(v T) { s.stack = append(s.stack, v) }

// drop discards the run pushed since mark. Like take, it leaves the popped
// slots uncleared (clearing pointer slots costs GC write barriers); they are
// overwritten by later pushes or cleared when the parser is recycled.
func (s *seq[T]) drop(mark int) { s.stack = s.stack[:mark] }

// take pops the run pushed since mark and returns it as a slice (nil when
// empty, like a never-appended slice).
func (s *seq[T]) take(mark int) []T {
	items := s.stack[mark:]
	n := len(items)
	if n == 0 {
		return nil
	}
	s.taken += n
	if cap(s.chunk)-len(s.chunk) < n {
		size := int(unsafe.Sizeof(items[0]))
		c := nextChunk(cap(s.chunk), size, n)
		if cap(s.chunk) == 0 {
			c = max(c, min(s.hint, maxChunkBytes/size))
		}
		s.chunk = make([]T, 0, c)
	}
	l := len(s.chunk)
	out := s.chunk[l : l+n : l+n]
	copy(out, items)
	s.chunk = s.chunk[:l+n]
	s.stack = s.stack[:mark]
	return out
}

// arena groups the per-parse slabs of node kinds and the builders of node
// slices. Rare nodes (the Program, while/break/continue/alias/use, env
// prefixes, time, datetime and regex literals, spawn, and range, record and
// list patterns) are allocated directly.
type arena struct {
	lastLen int // source length of the previous parse

	vars     slab[Var]
	fields   slab[Field]
	methods  slab[MethodCall]
	calls    slab[Call]
	args     slab[Arg]
	cmds     slab[Cmd]
	cmdCalls slab[CmdCall]
	cmdArgs  slab[CmdArg]
	exprSt   slab[ExprStmt]
	lets     slab[LetStmt]
	assigns  slab[AssignStmt]
	strs     slab[StrLit]
	interps  slab[StrInterp]
	ints     slab[IntLit]
	binaries slab[Binary]
	blocks   slab[Block]
	lambdas  slab[Lambda]
	params   slab[Param]
	recFlds  slab[RecordField]
	records  slab[Record]
	arms     slab[MatchArm]
	litPats  slab[LitPat]
	bindPats slab[BindPat]
	lists    slab[List]
	ifs      slab[If]
	types    slab[TypeExpr]
	withs    slab[With]
	withEnts slab[WithEntry]
	matches  slab[Match]
	catches  slab[Catch]
	tries    slab[Try]
	fnDecls  slab[FnDecl]
	fnStmts  slab[FnStmt]
	wildPats slab[WildcardPat]
	typePats slab[TypePat]
	langs    slab[LangBlock]
	durs     slab[DurationLit]
	sizes    slab[SizeLit]
	unaries  slab[Unary]
	indexes  slab[Index]
	fors     slab[ForStmt]
	returns  slab[ReturnStmt]
	ranges   slab[Range]
	bools    slab[BoolLit]
	floats   slab[FloatLit]
	nulls    slab[NullLit]
	redirs   slab[Redirect]

	stmtSeq  seq[Stmt]
	exprSeq  seq[Expr]
	argSeq   seq[*Arg]
	cmdSeq   seq[*CmdArg]
	fieldSeq seq[*RecordField]
	paramSeq seq[*Param]
	armSeq   seq[*MatchArm]
	patSeq   seq[Pattern]
	partSeq  seq[StrPart]
	withSeq  seq[*WithEntry]
	envSeq   seq[*EnvPrefix]
	redirSeq seq[*Redirect]
	typeSeq  seq[*TypeExpr]
}

// maxPooledStack bounds the scratch stack a recycled seq keeps.
const maxPooledStack = 1024

// recycled returns an empty seq that keeps only s's scratch stack (cleared,
// so it pins no nodes of the previous tree).
func (s *seq[T]) recycled() seq[T] {
	if cap(s.stack) > maxPooledStack {
		return seq[T]{last: s.taken}
	}
	clear(s.stack[:cap(s.stack)])
	return seq[T]{stack: s.stack[:0], last: s.taken}
}

// reset empties the arena for the next parse of a source srcLen bytes
// long: chunks belong to the tree already returned, so they are dropped;
// scratch stacks and per-kind usage counts are kept.
func (a *arena) reset(srcLen int) {
	a.lastLen = srcLen
	a.vars.recycle()
	a.fields.recycle()
	a.methods.recycle()
	a.calls.recycle()
	a.args.recycle()
	a.cmds.recycle()
	a.cmdCalls.recycle()
	a.cmdArgs.recycle()
	a.exprSt.recycle()
	a.lets.recycle()
	a.assigns.recycle()
	a.strs.recycle()
	a.interps.recycle()
	a.ints.recycle()
	a.binaries.recycle()
	a.blocks.recycle()
	a.lambdas.recycle()
	a.params.recycle()
	a.recFlds.recycle()
	a.records.recycle()
	a.arms.recycle()
	a.litPats.recycle()
	a.bindPats.recycle()
	a.lists.recycle()
	a.ifs.recycle()
	a.types.recycle()
	a.withs.recycle()
	a.withEnts.recycle()
	a.matches.recycle()
	a.catches.recycle()
	a.tries.recycle()
	a.fnDecls.recycle()
	a.fnStmts.recycle()
	a.wildPats.recycle()
	a.typePats.recycle()
	a.langs.recycle()
	a.durs.recycle()
	a.sizes.recycle()
	a.unaries.recycle()
	a.indexes.recycle()
	a.fors.recycle()
	a.returns.recycle()
	a.ranges.recycle()
	a.bools.recycle()
	a.floats.recycle()
	a.nulls.recycle()
	a.redirs.recycle()
	a.stmtSeq, a.exprSeq, a.argSeq, a.cmdSeq = a.stmtSeq.recycled(), a.exprSeq.recycled(), a.argSeq.recycled(), a.cmdSeq.recycled()
	a.fieldSeq, a.paramSeq, a.armSeq = a.fieldSeq.recycled(), a.paramSeq.recycled(), a.armSeq.recycled()
	a.patSeq, a.partSeq = a.patSeq.recycled(), a.partSeq.recycled()
	a.withSeq, a.envSeq = a.withSeq.recycled(), a.envSeq.recycled()
	a.redirSeq, a.typeSeq = a.redirSeq.recycled(), a.typeSeq.recycled()
}

// project sizes s's first chunk for a source of srcLen bytes from what the
// previous parse, of a source of lastLen bytes, took.
func (s *seq[T]) project(srcLen, lastLen int) {
	s.hint = 0
	if s.last > 0 && lastLen > 0 {
		s.hint = int(int64(s.last)*int64(srcLen)/int64(lastLen)) + 1
	}
}

// prepare readies the arena for parsing a source of srcLen bytes.
func (a *arena) prepare(srcLen int) {
	a.stmtSeq.project(srcLen, a.lastLen)
	a.exprSeq.project(srcLen, a.lastLen)
	a.argSeq.project(srcLen, a.lastLen)
	a.cmdSeq.project(srcLen, a.lastLen)
	a.fieldSeq.project(srcLen, a.lastLen)
	a.paramSeq.project(srcLen, a.lastLen)
	a.armSeq.project(srcLen, a.lastLen)
	a.patSeq.project(srcLen, a.lastLen)
	a.partSeq.project(srcLen, a.lastLen)
	a.withSeq.project(srcLen, a.lastLen)
	a.envSeq.project(srcLen, a.lastLen)
	a.redirSeq.project(srcLen, a.lastLen)
	a.typeSeq.project(srcLen, a.lastLen)
}
