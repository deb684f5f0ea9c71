package lsp

import (
	"iter"
	"reflect"
	"slices"
	"sync"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Incremental re-analysis. An edit that falls inside one top-level
// statement of a version that parsed re-parses that statement alone (its
// text up to the next statement), shifts the statements after it and
// re-resolves the index; anything else (an edit between statements or
// across one's end, a statement that no longer parses on its own or
// parses to more than one, a change in the names a statement binds at the
// top level, a `use` in the document, a document past
// incrementalMax) falls back to parsing the whole text.
// TestIncrementalEqualsFull checks the result against a whole parse over
// random edits of the corpus.

// incrementalMax is the largest document an edit re-analyses one
// statement at a time; a larger one is parsed whole on every change, since
// only a whole parse counts its syntax nodes against syntax.MaxNodes (a
// byte makes at most a few nodes). It is a threshold, not a bound: past
// it everything still works, at a whole parse per version.
const incrementalMax = 256 << 10

// stmtFrag is one top-level statement of an analysed version: its tree,
// and what it declares and uses (unresolved).
type stmtFrag struct {
	stmt syntax.Stmt
	// lag is how far the statement has moved since its tree was last
	// shifted: its spans plus lag are where it is. The declarations, uses
	// and positions below are always current; the trees catch up when a
	// request needs the whole tree (document.analysis).
	lag   int32
	defs  []def
	refs  []ref
	calls []*syntax.MethodCall
	binds []topBind
}

// topBind is a name a statement binds in the program's scope, as the
// parser tracks it to tell a value at a statement's head from a command.
type topBind struct {
	name  string
	value bool
}

// edit is one ranged change applied to a version: bytes [start, end) of
// the old text became n bytes.
type edit struct {
	start, end, n int
}

// then is the one edit that makes what e and then f (on e's result) make.
func (e edit) then(f edit) edit {
	start := min(e.start, f.start)
	end := max(e.start+e.n, f.end) // in the text between the two edits
	return edit{start: start, end: end - e.n + (e.end - e.start), n: end - start - (f.end - f.start) + f.n}
}

// newFrag indexes one top-level statement of src.
func newFrag(src string, st syntax.Stmt, whole syntax.Span) stmtFrag {
	f := stmtFrag{stmt: st}
	f.defs, f.refs, f.calls = indexStmt(src, st, whole)
	switch n := st.(type) {
	case *syntax.LetStmt:
		f.binds = []topBind{{n.Name, true}}
	case *syntax.FnStmt:
		if n.Decl != nil {
			f.binds = []topBind{{n.Decl.Name, false}}
		}
	case *syntax.AliasStmt:
		f.binds = []topBind{{n.Name, false}}
	}
	return f
}

// analysis is the document's current analysis with every tree span
// current, for the requests that read the tree.
func (d *document) analysis() *analysis {
	an := d.current()
	an.catchUp()
	return an
}

// current is the document's current analysis, computed once per version:
// from the previous version's when the changes since fall in one
// statement and it can, else from the whole text. Its index and method
// call positions are current; the trees of statements after an edit may
// lag (stmtFrag.lag) until analysis catches them up.
func (d *document) current() *analysis {
	if d.an == nil {
		if d.base != nil {
			d.an = d.base.edited(d.text, d.edit)
		}
		if d.an == nil {
			d.an = analyse(d.text)
		}
		if d.an.prog != nil {
			d.base = nil
		}
		if d.an.idx != nil {
			d.lastIdx = d.an.idx
		}
	}
	return d.an
}

// edited is the analysis of src, which is a's text with e applied, or nil
// when only a whole parse can tell. It takes over a's trees: a must not be
// used after it succeeds.
func (a *analysis) edited(src string, e edit) *analysis {
	if a.prog == nil || a.hasUse || len(src) > incrementalMax || len(a.frags) == 0 {
		return nil
	}
	delta := e.n - (e.end - e.start)
	k, _ := slices.BinarySearchFunc(a.frags, e.start, func(f stmtFrag, off int) int {
		return f.span().Start - off
	})
	if k == len(a.frags) || a.frags[k].span().Start > e.start {
		k--
	}
	if k < 0 {
		return nil
	}
	old := a.frags[k].span()
	if e.start < old.Start || e.end > old.End {
		return nil
	}
	// The statement is re-parsed from the end of the one before (a span
	// can leave out a bracket that opens it) together with the one after
	// it, which must come out as it was: then what separates them still
	// does (an edit can open a comment or a string that swallows it) and
	// the one after still reads its doc comment as before.
	from, to := 0, len(src)
	if k > 0 {
		from = a.frags[k-1].span().End
	}
	var next syntax.Stmt
	var nextLag int32
	if k+1 < len(a.frags) {
		next, nextLag = a.frags[k+1].stmt, a.frags[k+1].lag
		to = a.frags[k+1].span().End + delta
	}
	if to < from || to > len(src) {
		return nil
	}
	// The parser asks only of names at a statement's head: the latest
	// top-level binding before the statement answers.
	bound := func(name string) bool {
		for i := k - 1; i >= 0; i-- {
			for j := len(a.frags[i].binds) - 1; j >= 0; j-- {
				if b := a.frags[i].binds[j]; b.name == name {
					return b.value
				}
			}
		}
		return false
	}
	prog, err := syntax.Parse(src[from:to], syntax.ParseOptions{IsBound: bound})
	if err != nil || len(prog.Stmts) != 1+btoi(next != nil) {
		return nil
	}
	st := prog.Stmts[0]
	shiftSpans(st, int32(from))
	if next != nil {
		again := prog.Stmts[1]
		shiftSpans(again, int32(from-delta)-nextLag)
		if !reflect.DeepEqual(again, next) {
			return nil
		}
	}
	whole := syntax.Span{Start: 0, End: int32(len(src))}
	nf := newFrag(src, st, whole)
	if _, use := st.(*syntax.UseStmt); use || !slices.Equal(nf.binds, a.frags[k].binds) {
		return nil
	}
	// A function's doc comment is the comment lines above it, and the
	// text before this statement is unchanged.
	if fn, ok := st.(*syntax.FnStmt); ok && fn.Decl != nil {
		if was, ok := a.frags[k].stmt.(*syntax.FnStmt); ok && was.Decl != nil {
			fn.Decl.Doc = was.Decl.Doc
		}
	}
	// The same declarations, in the same order, keep the index's tables
	// by name; the same count of uses too keeps its lists, which then
	// change in place.
	same := sameDecls(a.frags[k].defs, nf.defs)
	inPlace := same && len(a.frags[k].refs) == len(nf.refs)
	var dOff, rOff int
	for i := range k {
		dOff, rOff = dOff+len(a.frags[i].defs), rOff+len(a.frags[i].refs)
	}
	frags := a.frags
	frags[k] = nf
	for i := k + 1; i < len(frags); i++ {
		frags[i].shift(delta)
	}
	var ix *index
	switch {
	case inPlace:
		ix = a.idx.moved(src, nf, dOff, rOff, delta)
	case same:
		ix = assemble(src, frags, a.idx, k)
	default:
		ix = assemble(src, frags, nil, 0)
	}
	stmts := a.prog.Stmts // as many as there are statements still
	stmts[k] = nf.stmt
	a.frags, a.idx, a.prog = nil, nil, nil // taken over
	return &analysis{src: src, prog: &syntax.Program{Stmts: stmts}, idx: ix, frags: frags, incremental: true}
}

// shift moves a statement after an edit by delta bytes: its tree, its
// declarations and its uses. Offsets that mean the whole program (a
// top-level scope, visibility from the program's start) stay.
func (f *stmtFrag) shift(delta int) {
	if delta == 0 {
		return
	}
	f.lag += int32(delta)
	for i := range f.defs {
		f.defs[i].shift(delta)
	}
	for i := range f.refs {
		f.refs[i].start += delta
		f.refs[i].end += delta
	}
}

// shift moves a declaration after an edit by delta bytes.
func (d *def) shift(delta int) {
	d.start += delta
	d.end += delta
	d.node = shifted(d.node, delta)
	if !d.wholeScope {
		d.scope = shifted(d.scope, delta)
	}
	if !d.wholeScope || d.visible != 0 {
		d.visible += delta
	}
}

// moved is ix changed in place for src: the statement whose declarations
// start at dOff and uses at rOff is now nf (with as many of each), and
// everything after it moved by delta. ix must not be used after.
func (ix *index) moved(src string, nf stmtFrag, dOff, rOff, delta int) *index {
	whole := syntax.Span{Start: 0, End: int32(len(src))}
	ix.src = src
	copy(ix.defs[dOff:], nf.defs)
	for i := dOff + len(nf.defs); i < len(ix.defs); i++ {
		ix.defs[i].shift(delta)
	}
	for i := range ix.defs {
		if ix.defs[i].wholeScope {
			ix.defs[i].scope = whole
		}
	}
	copy(ix.refs[rOff:], nf.refs)
	for i := rOff + len(nf.refs); i < len(ix.refs); i++ {
		ix.refs[i].start += delta
		ix.refs[i].end += delta
	}
	byStart := func(a, b int) int { return ix.defs[a].start - ix.defs[b].start }
	for _, d := range nf.defs {
		if list := ix.byName[d.name]; !slices.IsSortedFunc(list, byStart) {
			slices.SortFunc(list, byStart)
		}
	}
	for i := range ix.refs {
		ix.refs[i].def = ix.resolve(ix.refs[i].name, ix.refs[i].start, ix.refs[i].command)
	}
	return ix
}

// sameDecls reports whether two lists declare the same names of the same
// kinds in the same order.
func sameDecls(a, b []def) bool {
	return slices.EqualFunc(a, b, func(x, y def) bool { return x.name == y.name && x.kind == y.kind })
}

// methodCalls are the document's method calls in source order, each with
// what to add to its spans (its statement's lag).
func (a *analysis) methodCalls() iter.Seq2[*syntax.MethodCall, int] {
	return func(yield func(*syntax.MethodCall, int) bool) {
		for i := range a.frags {
			for _, m := range a.frags[i].calls {
				if !yield(m, int(a.frags[i].lag)) {
					return
				}
			}
		}
	}
}

// span is where the statement is now: [start, end) bytes.
type span struct{ Start, End int }

func (f *stmtFrag) span() span {
	sp := f.stmt.Pos()
	return span{int(sp.Start + f.lag), int(sp.End + f.lag)}
}

// catchUp shifts the trees that lag, so every span in the program is
// where it is in the text.
func (a *analysis) catchUp() {
	for i := range a.frags {
		if f := &a.frags[i]; f.lag != 0 {
			shiftSpans(f.stmt, f.lag)
			f.lag = 0
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func shifted(s syntax.Span, delta int) syntax.Span {
	return syntax.Span{Start: s.Start + int32(delta), End: s.End + int32(delta)}
}

// spanFields caches, per struct type of the tree, the fields that are or
// may hold spans.
var spanFields sync.Map // reflect.Type -> []int

// fieldsOf lists the fields of struct type t that are spans or may lead
// to one (pointers, interfaces, slices, structs).
func fieldsOf(t reflect.Type) []int {
	if f, ok := spanFields.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if mayHoldSpan(f.Type, 0) {
			out = append(out, i)
		}
	}
	spanFields.Store(t, out)
	return out
}

// mayHoldSpan reports whether a value of type t is or may lead to a span:
// an interface may; strings, numbers and slices of them do not.
func mayHoldSpan(t reflect.Type, depth int) bool {
	if depth > 8 {
		return true // deep or recursive: assume it may
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldSpan(t.Elem(), depth+1)
	case reflect.Struct:
		if t == reflect.TypeFor[syntax.Span]() {
			return true
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && mayHoldSpan(f.Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// shiftSpans adds delta to every span in the tree under n, in place. The
// walk is iterative (a stack of values), so a deep tree costs no Go stack.
// The tree is a tree: each node is reached once.
func shiftSpans(n syntax.Node, delta int32) {
	stack := []reflect.Value{reflect.ValueOf(n)}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				stack = append(stack, v.Elem())
			}
		case reflect.Slice, reflect.Array:
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[syntax.Span]() {
				sp := v.Addr().Interface().(*syntax.Span)
				sp.Start += delta
				sp.End += delta
				continue
			}
			for _, i := range fieldsOf(v.Type()) {
				stack = append(stack, v.Field(i))
			}
		}
	}
}
