package leash

import (
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// EffectOpaque is the kind of an effect that stands for behaviour the
// derivation could not bound (a sourced file, a session closure, a command
// computed at run time). It is always Dynamic; Name says what it was.
const EffectOpaque host.Effect = "opaque"

// maxCallDepth bounds how deeply derivation follows calls into functions
// declared in the source or the session, and aliases into their targets.
const maxCallDepth = 64

// maxWalkDepth bounds the expressions derivation has open at once, across
// the function bodies it follows: each tree is at most syntax.MaxDepth
// deep, but a chain of calls stacks bodies. Deeper, the rest is opaque.
const maxWalkDepth = 4 * syntax.MaxDepth

// local is what derivation knows about a name bound in the source.
type local struct {
	typ    string          // value type name, "" when unknown
	path   string          // absolute path text when typ is "path" and known
	fn     *syntax.FnDecl  // a declared function
	alias  *syntax.CmdCall // an alias target
	lambda bool            // bound to a lambda literal (body already counted)
	// own: any closure the binding holds was written in this source, so
	// its body has been counted where it was written.
	own bool
}

// dirState is a working directory as far as derivation knows it.
type dirState struct {
	dir string
	ok  bool
}

// walker accumulates a plan while visiting the AST.
type walker struct {
	env  Env
	plan Plan
	seen map[string]bool
	rev  string

	dir   string
	dirOK bool
	prev  dirState   // for `cd -`
	stack []dirState // pushd/popd

	scopes    []map[string]*local
	scopeBuf  [4]map[string]*local // scopes' first backing array
	depth     int                  // expressions open, at most maxWalkDepth
	active    map[*syntax.FnDecl]bool
	expanding map[string]bool // aliases being expanded
	notes     map[string]bool

	size int  // bytes the plan lists, at least as JSON (planbound.go)
	full bool // past MaxPlanBytes: nothing more is listed
}

// Derive walks p and returns its plan. It never runs anything and never
// touches the operating system; a nil program yields an empty plan.
func Derive(p *syntax.Program, env Env) *Plan {
	// The walker's maps, the root scope's included, are made when first
	// written (mark, bind): a source with no effects, bindings or calls,
	// such as a pure expression, allocates none of them.
	w := &walker{env: env, rev: Reversible, dir: env.Dir, dirOK: env.Dir != ""}
	w.prev = dirState{env.Dir, env.Dir != ""}
	w.scopes = w.scopeBuf[:1]
	if p != nil {
		w.stmts(p.Stmts)
	}
	w.plan.Reversibility = w.rev
	if w.plan.Effects == nil {
		w.plan.Effects = []Effect{}
	}
	return &w.plan
}

// add records e (once) and raises the plan's reversibility to at least rev.
func (w *walker) add(e Effect, rev string) {
	if e.Dynamic {
		w.plan.Opaque = true
	}
	if revRank(rev) > revRank(w.rev) {
		w.rev = rev
	}
	if w.full {
		return
	}
	k := e.key()
	if w.seen[k] {
		return
	}
	if !w.charge(effectBound(e)) {
		return
	}
	mark(&w.seen, k)
	w.plan.Effects = append(w.plan.Effects, e)
}

// opaque records behaviour that cannot be bounded, with a note.
func (w *walker) opaque(what, note string) {
	w.add(Effect{Kind: EffectOpaque, Name: what, Dynamic: true}, Unknown)
	w.note(note)
}

func (w *walker) note(n string) {
	if n == "" || w.full || w.notes[n] {
		return
	}
	if !w.charge(jsonStringBound(n) + 1) {
		return
	}
	mark(&w.notes, n)
	w.plan.Notes = append(w.plan.Notes, n)
}

// fsEffect records a filesystem effect on a path text.
func (w *walker) fsEffect(kind host.Effect, text string, rev string) {
	abs, ok := w.resolve(text)
	if !ok {
		w.note("path " + text + " is not statically known")
	}
	w.add(Effect{Kind: kind, Path: abs, Dynamic: !ok}, rev)
}

// dynamicFS records a filesystem effect on a path known only at run time.
func (w *walker) dynamicFS(kind host.Effect, what string, rev string) {
	w.add(Effect{Kind: kind, Name: what, Dynamic: true}, rev)
	w.note(string(kind) + " of a path computed at run time (" + what + ")")
}

// ---------------------------------------------------------------------------
// Scopes

// mark sets k in *m, making the map on its first write.
func mark[K comparable](m *map[K]bool, k K) {
	if *m == nil {
		*m = map[K]bool{}
	}
	(*m)[k] = true
}

func (w *walker) push() { w.scopes = append(w.scopes, nil) } // made by bind
func (w *walker) pop()  { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) bind(name string, l *local) {
	if name == "" || name == "_" {
		return
	}
	top := &w.scopes[len(w.scopes)-1]
	if *top == nil {
		*top = map[string]*local{}
	}
	(*top)[name] = l
}

func (w *walker) lookup(name string) (*local, bool) {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if l, ok := w.scopes[i][name]; ok {
			return l, true
		}
	}
	return nil, false
}

// sessionBound reports a value-bound session name not shadowed locally.
func (w *walker) sessionBound(name string) bool {
	return w.env.IsBound != nil && w.env.IsBound(name)
}

// free reports that name is neither bound in the source nor in the session:
// it resolves to a builtin, a namespace, a command or nothing.
func (w *walker) free(name string) bool {
	_, ok := w.lookup(name)
	return !ok && !w.sessionBound(name)
}

// ---------------------------------------------------------------------------
// Statements

func (w *walker) stmts(ss []syntax.Stmt) {
	for _, s := range ss {
		w.stmt(s)
	}
}

func (w *walker) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.LetStmt:
		w.expr(s.Init)
		w.bind(s.Name, w.localFor(s.Init))
	case *syntax.FnStmt:
		if s.Decl != nil {
			w.bind(s.Decl.Name, &local{typ: "closure", fn: s.Decl})
		}
	case *syntax.AliasStmt:
		w.bind(s.Name, &local{typ: "command", alias: s.Target})
	case *syntax.UseStmt:
		w.fsEffect(host.FSRead, s.Path, Reversible)
		w.opaque("use "+s.Path, "use runs another file, which is not analysed")
	case *syntax.AssignStmt:
		w.assign(s)
	case *syntax.ReturnStmt:
		w.expr(s.Value)
	case *syntax.ForStmt:
		w.expr(s.Iter)
		w.push()
		w.bind(s.Var, &local{})
		w.loopBody(s.Body)
		w.pop()
	case *syntax.WhileStmt:
		w.expr(s.Cond)
		w.loopBody(s.Body)
	case *syntax.ExprStmt:
		w.expr(s.X)
	case *syntax.BreakStmt, *syntax.ContinueStmt:
	default:
		w.unknown(s)
	}
}

// loopBody walks a body that may run any number of times: a directory
// change inside it leaves the directory unknown afterwards.
func (w *walker) loopBody(b *syntax.Block) {
	before := dirState{w.dir, w.dirOK}
	w.block(b)
	if w.dir != before.dir || w.dirOK != before.ok {
		w.dirOK = false
		w.note("the working directory changes inside a loop")
	}
}

func (w *walker) assign(s *syntax.AssignStmt) {
	w.expr(s.Value)
	switch t := s.Target.(type) {
	case *syntax.Field:
		if v, ok := t.X.(*syntax.Var); ok && v.Name == "env" && w.free("env") {
			if s.Op != syntax.AssignSet {
				w.add(Effect{Kind: host.EnvRead, Name: t.Name}, Reversible)
			}
			w.add(Effect{Kind: host.EnvWrite, Name: t.Name}, Reversible)
			return
		}
		w.expr(t.X)
	case *syntax.Index:
		w.expr(t.X)
		w.expr(t.Index)
	case *syntax.Var:
		if l, ok := w.lookup(t.Name); ok && s.Op == syntax.AssignSet {
			*l = *w.localFor(s.Value)
		}
	}
}

// localFor describes a binding initialised with x.
func (w *walker) localFor(x syntax.Expr) *local {
	l := &local{typ: w.kindOf(x), own: w.ownValue(x)}
	if _, ok := x.(*syntax.Lambda); ok {
		l.lambda = true
	}
	if l.typ == "path" {
		if p, ok := w.staticPath(x); ok {
			l.path = p
		}
	}
	return l
}

func (w *walker) block(b *syntax.Block) {
	if b == nil {
		return
	}
	w.push()
	w.stmts(b.Stmts)
	w.pop()
}

// bindPattern binds every name a pattern introduces.
func (w *walker) bindPattern(p syntax.Pattern) {
	switch p := p.(type) {
	case *syntax.BindPat:
		w.bind(p.Name, &local{})
	case *syntax.TypePat:
		w.bind(p.Binder, &local{typ: p.Type})
	case *syntax.RecordPat:
		for _, f := range p.Fields {
			if f.Pat == nil {
				w.bind(f.Key, &local{})
			} else {
				w.bindPattern(f.Pat)
			}
		}
	case *syntax.ListPat:
		for _, e := range p.Elems {
			w.bindPattern(e)
		}
		if p.HasRest {
			w.bind(p.Rest, &local{typ: "list"})
		}
	}
}

// ownValue reports that every closure x can evaluate to was written in this
// source: x mentions no session value and no parameter. Unhandled forms
// answer false.
func (w *walker) ownValue(x syntax.Expr) bool {
	switch x := x.(type) {
	case nil, *syntax.NullLit, *syntax.BoolLit, *syntax.IntLit, *syntax.FloatLit, *syntax.StrLit,
		*syntax.StrInterp, *syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit,
		*syntax.DateTimeLit, *syntax.PathLit, *syntax.RegexLit, *syntax.Lambda, *syntax.Range:
		return true
	case *syntax.Var:
		if l, ok := w.lookup(x.Name); ok {
			return l.own || l.fn != nil || l.lambda
		}
		// A free name naming a value function is that function as a value:
		// calls of it later are not followed.
		return !w.sessionBound(x.Name) && !w.isValueFunc(x.Name)
	case *syntax.Call:
		if !w.ownValue(x.Fn) {
			return false
		}
		for _, a := range x.Args {
			if !w.ownValue(a.Value) {
				return false
			}
		}
		return true
	case *syntax.MethodCall:
		if !w.ownValue(x.X) {
			return false
		}
		for _, a := range x.Args {
			if !w.ownValue(a.Value) {
				return false
			}
		}
		return true
	case *syntax.Field:
		return w.ownValue(x.X)
	case *syntax.Index:
		return w.ownValue(x.X)
	case *syntax.List:
		for _, e := range x.Elems {
			if !w.ownValue(e) {
				return false
			}
		}
		return true
	case *syntax.Record:
		for _, f := range x.Fields {
			if !w.ownValue(f.Value) {
				return false
			}
		}
		return true
	case *syntax.Binary:
		return w.ownValue(x.L) && w.ownValue(x.R)
	}
	return false
}
