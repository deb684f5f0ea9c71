package syntax

import "unsafe"

// The parser allocates AST nodes and node slices from per-parse chunks
// rather than one heap object each: a 10 kB script has thousands of nodes,
// and chunking turns those into a few dozen allocations. For the
// package-level Parse, chunks are owned by the finished AST (a node pointer
// keeps its chunk alive), so nothing is reused across parses and the
// returned tree is ordinary Go memory. A Parser instead keeps its chunks:
// the next parse clears and refills them, so in steady state parsing
// allocates almost nothing and never wakes the garbage collector.

// Chunks hold at least minChunk elements and at most about maxChunkBytes.
// A Parser keeps at most maxKeptBytes of chunks per node kind between
// parses.
const (
	minChunk      = 4
	maxChunkBytes = 8 << 10
	maxKeptBytes  = 64 << 10
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

	// Only a keeping parser (a Parser) fills these.
	full  [][]T // chunks filled earlier in this parse
	spare [][]T // cleared chunks of earlier parses, ready to hand out
}

// recycle empties s for the next parse, remembering how many elements this
// parse used. With keep, the chunks this parse filled are cleared and kept
// for the next one (up to maxKeptBytes); otherwise they belong to the tree
// already returned and are dropped.
func (s *slab[T]) recycle(keep bool) {
	if s.buf == nil && s.used == 0 && len(s.full) == 0 && (keep || s.spare == nil) {
		// Untouched this parse (most kinds, for most sources): nothing
		// to drop or keep, and it used none.
		s.last = 0
		return
	}
	s.last = s.used + len(s.buf)
	if keep {
		if s.buf != nil {
			s.full = append(s.full, s.buf)
		}
		s.spare = keepChunks(s.spare, s.full)
		s.full = s.full[:0]
	} else {
		s.full, s.spare = nil, nil
	}
	s.buf, s.used = nil, 0
}

// keepChunks clears each filled chunk (so the kept memory pins nothing of
// the old tree and the node constructors can rely on zeroed slots) and adds
// it to spare while spare's capacity stays within maxKeptBytes.
func keepChunks[T any](spare, full [][]T) [][]T {
	var zero T
	budget := maxKeptBytes / max(int(unsafe.Sizeof(zero)), 1)
	for _, c := range spare {
		budget -= cap(c)
	}
	for i, c := range full {
		clear(c)
		if cap(c) <= budget {
			budget -= cap(c)
			spare = append(spare, c[:0])
		}
		full[i] = nil
	}
	return spare
}

// next returns the address of a fresh zeroed slot in p's slab s. The
// typed constructors in arena_nodes.go fill it.
func next[T any](p *parser, s *slab[T]) *T {
	if len(s.buf) == cap(s.buf) {
		s.grow(p)
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// grow starts a new chunk: a spare one when the parser keeps its chunks and
// has one, else a fresh one sized by chunkSize.
func (s *slab[T]) grow(p *parser) {
	s.used += len(s.buf)
	if p.ar.keep {
		if s.buf != nil {
			s.full = append(s.full, s.buf)
		}
		if n := len(s.spare); n > 0 {
			s.buf = s.spare[n-1]
			s.spare[n-1] = nil
			s.spare = s.spare[:n-1]
			return
		}
	}
	var zero T
	s.buf = make([]T, 0, p.chunkSize(s.used, s.last, int(unsafe.Sizeof(zero))))
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
	hi    int // the stack's greatest height this parse, as far as drop and take saw it
	chunk []T
	taken int // elements taken this parse
	last  int // elements taken by the parser's previous parse
	hint  int // first chunk capacity projected from last at parse start

	// Only a keeping parser (a Parser) fills these, as for slab.
	full  [][]T
	spare [][]T
	keep  bool
}

// mark returns the stack height at which a new run starts.
func (s *seq[T]) mark() int { return len(s.stack) }

func (s *seq[T]) push(v T) { s.stack = append(s.stack, v) }

// drop discards the run pushed since mark. Like take, it leaves the popped
// slots uncleared (clearing pointer slots costs GC write barriers); they are
// overwritten by later pushes or cleared when the parser is recycled.
func (s *seq[T]) drop(mark int) {
	s.hi = max(s.hi, len(s.stack))
	s.stack = s.stack[:mark]
}

// take pops the run pushed since mark and returns it as a slice (nil when
// empty, like a never-appended slice).
func (s *seq[T]) take(mark int) []T {
	items := s.stack[mark:]
	n := len(items)
	if n == 0 {
		return nil
	}
	s.taken += n
	s.hi = max(s.hi, len(s.stack))
	if cap(s.chunk)-len(s.chunk) < n {
		s.grow(n)
	}
	l := len(s.chunk)
	out := s.chunk[l : l+n : l+n]
	copy(out, items)
	s.chunk = s.chunk[:l+n]
	s.stack = s.stack[:mark]
	return out
}

// grow starts a chunk with room for at least n elements: a spare one when
// the parser keeps its chunks and has one big enough, else a fresh one.
func (s *seq[T]) grow(n int) {
	prev := cap(s.chunk)
	if s.keep {
		if s.chunk != nil {
			s.full = append(s.full, s.chunk)
			s.chunk = nil
		}
		for len(s.spare) > 0 {
			c := s.spare[len(s.spare)-1]
			s.spare[len(s.spare)-1] = nil
			s.spare = s.spare[:len(s.spare)-1]
			if cap(c) >= n {
				s.chunk = c
				return
			}
			s.full = append(s.full, c) // too small for this run; kept again at recycle
		}
	}
	var zero T
	size := max(int(unsafe.Sizeof(zero)), 1)
	c := nextChunk(prev, size, n)
	if prev == 0 {
		c = max(c, min(s.hint, maxChunkBytes/size))
	}
	s.chunk = make([]T, 0, c)
}

// arena groups the per-parse slabs of node kinds and the builders of node
// slices. Rare nodes (the Program, while/break/continue/alias/use, env
// prefixes, time, datetime and regex literals, spawn, and range, record and
// list patterns) are allocated directly.
type arena struct {
	lastLen int  // source length of the previous parse
	keep    bool // chunks are kept and reused across parses (a Parser)

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

// recycled returns an empty seq that keeps s's scratch stack (cleared, so
// it pins no nodes of the previous tree) and, with keep, its chunks
// (cleared too).
func (s *seq[T]) recycled(keep bool) seq[T] {
	r := seq[T]{last: s.taken, keep: keep}
	if keep {
		if s.chunk != nil {
			s.full = append(s.full, s.chunk)
		}
		r.spare, r.full = keepChunks(s.spare, s.full), s.full[:0]
	}
	if cap(s.stack) <= maxPooledStack {
		// Only slots below the greatest height this parse reached were
		// written since the last clear (the stack grows only by push and
		// shrinks only by drop and take, which note the height first).
		clear(s.stack[:max(s.hi, len(s.stack))])
		r.stack = s.stack[:0]
	}
	return r
}

// reset empties the arena for the next parse of a source srcLen bytes
// long. Unless the arena keeps its chunks, they belong to the tree already
// returned and are dropped; scratch stacks and per-kind usage counts are
// kept either way.
func (a *arena) reset(srcLen int) {
	a.lastLen = srcLen
	a.vars.recycle(a.keep)
	a.fields.recycle(a.keep)
	a.methods.recycle(a.keep)
	a.calls.recycle(a.keep)
	a.args.recycle(a.keep)
	a.cmds.recycle(a.keep)
	a.cmdCalls.recycle(a.keep)
	a.cmdArgs.recycle(a.keep)
	a.exprSt.recycle(a.keep)
	a.lets.recycle(a.keep)
	a.assigns.recycle(a.keep)
	a.strs.recycle(a.keep)
	a.interps.recycle(a.keep)
	a.ints.recycle(a.keep)
	a.binaries.recycle(a.keep)
	a.blocks.recycle(a.keep)
	a.lambdas.recycle(a.keep)
	a.params.recycle(a.keep)
	a.recFlds.recycle(a.keep)
	a.records.recycle(a.keep)
	a.arms.recycle(a.keep)
	a.litPats.recycle(a.keep)
	a.bindPats.recycle(a.keep)
	a.lists.recycle(a.keep)
	a.ifs.recycle(a.keep)
	a.types.recycle(a.keep)
	a.withs.recycle(a.keep)
	a.withEnts.recycle(a.keep)
	a.matches.recycle(a.keep)
	a.catches.recycle(a.keep)
	a.tries.recycle(a.keep)
	a.fnDecls.recycle(a.keep)
	a.fnStmts.recycle(a.keep)
	a.wildPats.recycle(a.keep)
	a.typePats.recycle(a.keep)
	a.langs.recycle(a.keep)
	a.durs.recycle(a.keep)
	a.sizes.recycle(a.keep)
	a.unaries.recycle(a.keep)
	a.indexes.recycle(a.keep)
	a.fors.recycle(a.keep)
	a.returns.recycle(a.keep)
	a.ranges.recycle(a.keep)
	a.bools.recycle(a.keep)
	a.floats.recycle(a.keep)
	a.nulls.recycle(a.keep)
	a.redirs.recycle(a.keep)
	a.stmtSeq, a.exprSeq, a.argSeq, a.cmdSeq = a.stmtSeq.recycled(a.keep), a.exprSeq.recycled(a.keep), a.argSeq.recycled(a.keep), a.cmdSeq.recycled(a.keep)
	a.fieldSeq, a.paramSeq, a.armSeq = a.fieldSeq.recycled(a.keep), a.paramSeq.recycled(a.keep), a.armSeq.recycled(a.keep)
	a.patSeq, a.partSeq = a.patSeq.recycled(a.keep), a.partSeq.recycled(a.keep)
	a.withSeq, a.envSeq = a.withSeq.recycled(a.keep), a.envSeq.recycled(a.keep)
	a.redirSeq, a.typeSeq = a.redirSeq.recycled(a.keep), a.typeSeq.recycled(a.keep)
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
