package syntax

import "unsafe"

// The parser allocates AST nodes and node slices from per-parse chunks
// rather than one heap object each: a 10 kB script has thousands of nodes,
// and chunking turns those into a few dozen allocations. Chunks are owned by
// the finished AST (a node pointer keeps its chunk alive), so nothing is
// reused across parses and the returned tree is ordinary Go memory.

// Chunks hold at least minChunk elements and at most about maxChunkBytes.
const (
	minChunk      = 8
	maxChunkBytes = 4 << 10
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
}

// next returns the address of a fresh zeroed slot in p's slab s. The
// typed constructors in arena_nodes.go fill it.
func next[T any](p *parser, s *slab[T]) *T {
	if len(s.buf) == cap(s.buf) {
		s.used += len(s.buf)
		var zero T
		s.buf = make([]T, 0, p.chunkSize(s.used, int(unsafe.Sizeof(zero))))
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// chunkSize projects how many more elements of a kind the parse will need
// from how many it has used so far in the source consumed, clamped to
// [minChunk, maxChunkBytes/size].
func (p *parser) chunkSize(used, size int) int {
	hi := max(maxChunkBytes/max(size, 1), minChunk)
	if used == 0 {
		return minChunk
	}
	done := int64(max(p.pos, 1))
	rest := int64(max(len(p.src)-p.pos, 0))
	est := int64(used)*rest/done + 1
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
	if cap(s.chunk)-len(s.chunk) < n {
		s.chunk = make([]T, 0, nextChunk(cap(s.chunk), int(unsafe.Sizeof(items[0])), n))
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
}

// maxPooledStack bounds the scratch stack a recycled seq keeps.
const maxPooledStack = 1024

// recycled returns an empty seq that keeps only s's scratch stack (cleared,
// so it pins no nodes of the previous tree).
func (s *seq[T]) recycled() seq[T] {
	if cap(s.stack) > maxPooledStack {
		return seq[T]{}
	}
	clear(s.stack[:cap(s.stack)])
	return seq[T]{stack: s.stack[:0]}
}

// reset empties the arena for the next parse: chunks belong to the tree
// already returned, so they are dropped; scratch stacks are kept.
func (a *arena) reset() {
	// Recycle the scratch stacks first, then clear the whole arena in place
	// (a memclr) rather than building a fresh arena value on the stack.
	stmt, expr, arg, cmd := a.stmtSeq.recycled(), a.exprSeq.recycled(), a.argSeq.recycled(), a.cmdSeq.recycled()
	field, param, arm := a.fieldSeq.recycled(), a.paramSeq.recycled(), a.armSeq.recycled()
	pat, part := a.patSeq.recycled(), a.partSeq.recycled()
	*a = arena{}
	a.stmtSeq, a.exprSeq, a.argSeq, a.cmdSeq = stmt, expr, arg, cmd
	a.fieldSeq, a.paramSeq, a.armSeq = field, param, arm
	a.patSeq, a.partSeq = pat, part
}
