package lsp

import (
	"slices"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// analysis is what one version of a document parses to: the tree or the
// parse error, and the index of its bindings.
type analysis struct {
	src    string // the text analysed
	prog   *syntax.Program
	err    *syntax.Error
	idx    *index
	frags  []stmtFrag // the top-level statements, for re-analysing an edit
	hasUse bool       // a top-level `use` binds a name (edits re-parse everything)
	// incremental: made from the previous version's by re-parsing one
	// statement.
	incremental bool
}

// defKind is what declared a name.
type defKind uint8

const (
	defLet defKind = iota
	defVar
	defFn
	defAlias
	defParam
	defFor
	defPattern
	defCatch
)

var defKindNames = [...]string{"let", "var", "fn", "alias", "parameter", "for", "pattern", "catch"}

// def is one declaration: the name's span, where it is visible (scope,
// from visible on), the declaring node's span and what a literal
// initialiser says of its kind.
type def struct {
	name       string
	kind       defKind
	start, end int // the name
	scope      syntax.Span
	visible    int
	node       syntax.Span
	typ        string // "" when unknown
	decl       *syntax.FnDecl
	top        bool // declared at the program's top level
	wholeScope bool // scope is the whole program (it grows and shrinks with the text)
}

// ref is one use of a name: a variable, or a command head naming a
// function or alias. def is its declaration's index, -1 when none.
type ref struct {
	name       string
	start, end int
	command    bool
	def        int
}

// index is a document's bindings and their uses, in source order.
type index struct {
	src    string // the text it indexes
	defs   []def
	byName map[string][]int // the declarations of each name, in source order
	early  map[string][]int // those visible before their own position (functions, aliases, patterns)
	refs   []ref
}

// analyse parses src and indexes it.
func analyse(src string) *analysis {
	prog, err := syntax.Parse(src, syntax.ParseOptions{})
	if err != nil {
		pe, ok := err.(*syntax.Error)
		if !ok {
			pe = &syntax.Error{Msg: err.Error()}
		}
		return &analysis{src: src, err: pe}
	}
	an := &analysis{src: src, prog: prog, frags: make([]stmtFrag, len(prog.Stmts))}
	whole := syntax.Span{Start: 0, End: int32(len(src))}
	for i, st := range prog.Stmts {
		an.frags[i] = newFrag(src, st, whole)
		if _, ok := st.(*syntax.UseStmt); ok {
			an.hasUse = true
		}
	}
	an.idx = assemble(src, an.frags, nil, 0)
	return an
}

// isScope reports the nodes that open a scope for the names declared in
// them.
func isScope(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.Program, *syntax.Block, *syntax.FnDecl, *syntax.Lambda, *syntax.ForStmt,
		*syntax.MatchArm, *syntax.Try, *syntax.Catch:
		return true
	}
	return false
}

// indexStmt walks one top-level statement, keeping a stack of the scopes
// that enclose the node being visited (the walk is in source order; the
// program's scope, whole, is at the bottom), and lists what it declares
// and uses, unresolved, and its method calls.
func indexStmt(src string, st syntax.Stmt, whole syntax.Span) (defs []def, refs []ref, calls []*syntax.MethodCall) {
	stack := []syntax.Span{whole}
	add := func(name string, kind defKind, start, end int, scope syntax.Span, visible int, node syntax.Span) *def {
		if name == "" || name == "_" || strings.HasPrefix(name, "·") {
			return nil
		}
		top := len(stack) == 1
		defs = append(defs, def{name: name, kind: kind, start: start, end: end, scope: scope,
			visible: visible, node: node, top: top, wholeScope: top && scope == whole})
		return &defs[len(defs)-1]
	}
	syntax.Walk(st, func(n syntax.Node) bool {
		sp := n.Pos()
		for len(stack) > 1 {
			top := stack[len(stack)-1]
			if top.Start <= sp.Start && sp.End <= top.End {
				break
			}
			stack = stack[:len(stack)-1]
		}
		enclosing := stack[len(stack)-1]
		switch n := n.(type) {
		case *syntax.LetStmt:
			kind := defLet
			if n.Mutable {
				kind = defVar
			}
			s, e := findName(src, int(sp.Start), int(sp.End), n.Name)
			if d := add(n.Name, kind, s, e, enclosing, int(sp.End), sp); d != nil {
				d.typ = literalKind(n.Init)
				if n.Type != nil {
					d.typ = n.Type.Name
				}
			}
		case *syntax.FnDecl:
			s, e := findName(src, int(sp.Start), int(sp.End), n.Name)
			if d := add(n.Name, defFn, s, e, enclosing, int(enclosing.Start), sp); d != nil {
				d.decl, d.typ = n, "closure"
			}
		case *syntax.AliasStmt:
			s, e := findName(src, int(sp.Start), int(sp.End), n.Name)
			add(n.Name, defAlias, s, e, enclosing, int(enclosing.Start), sp)
		case *syntax.Param:
			s, e := findName(src, int(sp.Start), int(sp.End), n.Name)
			if d := add(n.Name, defParam, s, e, enclosing, s, sp); d != nil && n.Type != nil {
				d.typ = n.Type.Name
			}
		case *syntax.ForStmt:
			s, e := findName(src, int(sp.Start)+len("for"), int(sp.End), n.Var)
			add(n.Var, defFor, s, e, sp, s, sp)
		case *syntax.BindPat:
			add(n.Name, defPattern, int(sp.Start), int(sp.End), enclosing, int(enclosing.Start), sp)
		case *syntax.TypePat:
			s, e := findName(src, int(sp.Start)+len(n.Type), int(sp.End), n.Binder)
			if d := add(n.Binder, defPattern, s, e, enclosing, int(enclosing.Start), sp); d != nil {
				d.typ = n.Type
			}
		case *syntax.RecordPatField:
			if n.Pat == nil {
				s, e := findName(src, int(sp.Start), int(sp.End), n.Key)
				add(n.Key, defPattern, s, e, enclosing, int(enclosing.Start), sp)
			}
		case *syntax.ListPat:
			if n.HasRest {
				s, e := findName(src, strings.LastIndex(src[:sp.End], "...")+3, int(sp.End), n.Rest)
				add(n.Rest, defPattern, s, e, enclosing, int(enclosing.Start), sp)
			}
		case *syntax.Try:
			if n.Binder != "" && n.Handler != nil {
				s, e := findName(src, int(n.Body.Span.End), int(n.Handler.Span.Start), n.Binder)
				add(n.Binder, defCatch, s, e, n.Handler.Span, int(n.Handler.Span.Start), sp)
			}
		case *syntax.Catch:
			if n.Binder != "" && n.Handler != nil {
				h := n.Handler.Pos()
				s, e := findName(src, int(n.X.Pos().End), int(h.Start), n.Binder)
				add(n.Binder, defCatch, s, e, h, int(h.Start), sp)
			}
		case *syntax.Var:
			refs = append(refs, ref{name: n.Name, start: int(sp.Start), end: int(sp.End), def: -1})
		case *syntax.MethodCall:
			calls = append(calls, n)
		case *syntax.CmdCall:
			if h := n.Head; h != nil && h.Kind == syntax.ArgWord && !n.Forced {
				refs = append(refs, ref{name: h.Text, start: int(h.Span.Start), end: int(h.Span.End), command: true, def: -1})
			}
		}
		if isScope(n) {
			stack = append(stack, sp)
		}
		return true
	})
	return defs, refs, calls
}

// assemble joins the statements' declarations and uses into the index of
// src, resolving every use to the innermost visible declaration. When
// prev is the index of the version before, which differed only in
// statement k and declared the same names of the same kinds in it, its
// tables by name still hold (each declaration keeps its position in the
// list).
func assemble(src string, frags []stmtFrag, prev *index, k int) *index {
	ix := &index{src: src}
	whole := syntax.Span{Start: 0, End: int32(len(src))}
	nd, nr := 0, 0
	for i := range frags {
		nd, nr = nd+len(frags[i].defs), nr+len(frags[i].refs)
	}
	ix.defs, ix.refs = make([]def, 0, nd), make([]ref, 0, nr)
	for i := range frags {
		for _, d := range frags[i].defs {
			if d.wholeScope {
				d.scope = whole
			}
			ix.defs = append(ix.defs, d)
		}
		ix.refs = append(ix.refs, frags[i].refs...)
	}
	byStart := func(a, b int) int { return ix.defs[a].start - ix.defs[b].start }
	if prev != nil {
		ix.byName, ix.early = prev.byName, prev.early
		for _, d := range frags[k].defs {
			if list := ix.byName[d.name]; !slices.IsSortedFunc(list, byStart) {
				slices.SortFunc(list, byStart)
			}
		}
	} else {
		ix.byName = make(map[string][]int, len(ix.defs))
		ix.early = map[string][]int{}
		for i, d := range ix.defs {
			ix.byName[d.name] = append(ix.byName[d.name], i)
			if d.visible < d.start {
				ix.early[d.name] = append(ix.early[d.name], i)
			}
		}
		for _, list := range ix.byName {
			if !slices.IsSortedFunc(list, byStart) {
				slices.SortFunc(list, byStart)
			}
		}
	}
	for i := range ix.refs {
		ix.refs[i].def = ix.resolve(ix.refs[i].name, ix.refs[i].start, ix.refs[i].command)
	}
	return ix
}

// resolve finds the declaration a use of name at off means: among those
// whose scope holds off and that are visible there, the innermost scope's,
// the latest in it. A command head means only a function or alias.
func (ix *index) resolve(name string, off int, command bool) int {
	fits := func(i int) bool {
		d := &ix.defs[i]
		if off < int(d.scope.Start) || off > int(d.scope.End) || off < d.visible {
			return false
		}
		if command && d.kind != defFn && d.kind != defAlias {
			return false
		}
		return off < d.start || off >= d.end // not the declaration itself
	}
	// Scopes nest, so the nearest fitting declaration before off is in
	// the innermost scope that has one: a later one in an outer scope
	// would lie inside the inner scope.
	best := -1
	list := ix.byName[name]
	n, _ := slices.BinarySearchFunc(list, off, func(i, off int) int { return ix.defs[i].start - off })
	for j := n - 1; j >= 0; j-- {
		if fits(list[j]) {
			best = list[j]
			break
		}
	}
	// A function, alias or pattern binder is visible before it is
	// written: one in a narrower scope wins.
	for _, i := range ix.early[name] {
		if i == best || !fits(i) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b, d := &ix.defs[best], &ix.defs[i]
		if d.scope.End-d.scope.Start < b.scope.End-b.scope.Start {
			best = i
		}
	}
	return best
}

// defAt is the declaration whose name, or a use of it, lies at off.
func (ix *index) defAt(off int) int {
	for i, d := range ix.defs {
		if off >= d.start && off <= d.end {
			return i
		}
	}
	for _, r := range ix.refs {
		if off >= r.start && off <= r.end {
			return r.def
		}
	}
	return -1
}

// visibleNames lists the names declared before off whose scope holds it,
// with their kinds, the innermost last.
func (ix *index) visibleNames(off int) (values, commands []string, kinds map[string]string) {
	kinds = map[string]string{}
	seen := map[string]bool{}
	for _, d := range ix.defs {
		if off < int(d.scope.Start) || off > int(d.scope.End) || off < d.visible {
			continue
		}
		if d.typ != "" {
			kinds[d.name] = d.typ
		}
		if seen[d.name] {
			continue
		}
		seen[d.name] = true
		if d.kind == defFn || d.kind == defAlias {
			commands = append(commands, d.name)
		} else {
			values = append(values, d.name)
		}
	}
	return values, commands, kinds
}

// kindOf is the kind visibleNames gives name at off: that of the last
// declaration of it (in the index's order) visible there that has one; ""
// when none does, or ix is nil.
func (ix *index) kindOf(name string, off int) string {
	if ix == nil {
		return ""
	}
	best := -1
	for _, i := range ix.byName[name] {
		d := &ix.defs[i]
		if d.typ == "" || off < int(d.scope.Start) || off > int(d.scope.End) || off < d.visible {
			continue
		}
		best = max(best, i)
	}
	if best < 0 {
		return ""
	}
	return ix.defs[best].typ
}

// findName is the first whole-word occurrence of name in src[from:to]
// (from, from when absent).
func findName(src string, from, to int, name string) (int, int) {
	from, to = max(0, min(from, len(src))), max(0, min(to, len(src)))
	if name == "" || from >= to {
		return from, from
	}
	for i := from; i+len(name) <= to; {
		j := strings.Index(src[i:to], name)
		if j < 0 {
			break
		}
		s := i + j
		e := s + len(name)
		if (s == 0 || !identByte(src[s-1])) && (e >= len(src) || !identByte(src[e])) {
			return s, e
		}
		i = s + 1
	}
	return from, from
}

func identByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// literalKind is the kind a literal initialiser gives a binding, "" when
// the expression does not say.
func literalKind(e syntax.Expr) string {
	var k value.Kind
	switch e.(type) {
	case *syntax.IntLit:
		k = value.KInt
	case *syntax.FloatLit:
		k = value.KFloat
	case *syntax.StrLit, *syntax.StrInterp:
		k = value.KStr
	case *syntax.BoolLit:
		k = value.KBool
	case *syntax.NullLit:
		k = value.KNull
	case *syntax.List:
		k = value.KList
	case *syntax.Record:
		k = value.KRecord
	case *syntax.PathLit:
		k = value.KPath
	case *syntax.SizeLit:
		k = value.KSize
	case *syntax.DurationLit:
		k = value.KDuration
	case *syntax.DateTimeLit:
		k = value.KDateTime
	case *syntax.TimeLit:
		k = value.KTime
	case *syntax.RegexLit:
		k = value.KRegex
	case *syntax.Lambda:
		k = value.KClosure
	case *syntax.Range:
		k = value.KRange
	default:
		return ""
	}
	return k.String()
}
