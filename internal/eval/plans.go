package eval

// The in-language plan, explain and apply builtins: derive what a program
// would do without running it (leash.Derive, the same derivation the
// kernel's explain uses), keep a planned program in the session under a
// small integer id, and run it later through the same gate as any other
// code.

import (
	"github.com/shoalgo/shoal/internal/budget"
	"strconv"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

func registerPlans(p *Part) {
	p.Builtin(&Builtin{Name: "plan", Help: Help{Summary: "what a command or block would do, without running it; apply runs it later", Usage: "plan COMMAND... | plan { ... }", Example: "let p = (plan rm old.log)\np.effects\napply p"}, Run: runPlan, Bare: true, Quoted: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "explain", Help: Help{Summary: "the effects source text would have, without running or keeping it", Usage: "explain SOURCE", Example: "explain 'git status; cat notes.txt'"}, Run: runExplain, Bare: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "apply", Help: Help{Summary: "run a plan made by plan", Usage: "apply PLAN | ID", Example: "let p = (plan touch marker)\napply p"}, Run: runApply, Bare: true,
		Effects: effOpaque("apply runs a stored plan, whose effects were shown when it was planned")})
}

// planStore holds the programs `plan` stored, at most MaxStoredPlans
// spanning at most MaxStoredPlanBytes of source; past either the oldest
// are dropped (their ids then answer not_found).
type planStore struct {
	mu    sync.Mutex
	next  int
	order []int // ids, oldest first
	progs map[int]storedPlan
	bytes int // source bytes the stored programs span
}

type storedPlan struct {
	prog  *syntax.Program
	bytes int
}

// put stores p, whose source spans n bytes; a program larger than the
// whole store is refused.
func (s *planStore) put(p *syntax.Program, n int) (int, error) {
	if n > MaxStoredPlanBytes {
		return 0, &budget.ExceededError{Name: BudgetStoredPlans, Limit: MaxStoredPlanBytes,
			Reason: "the program to plan spans " + itoa(n) + " bytes of source"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progs == nil {
		s.progs = map[int]storedPlan{}
	}
	s.next++
	id := s.next
	s.progs[id] = storedPlan{p, n}
	s.order = append(s.order, id)
	s.bytes += n
	for len(s.order) > MaxStoredPlans || s.bytes > MaxStoredPlanBytes {
		s.bytes -= s.progs[s.order[0]].bytes
		delete(s.progs, s.order[0])
		s.order = s.order[1:]
	}
	return id, nil
}

func (s *planStore) get(id int) (*syntax.Program, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.progs[id]
	return p.prog, ok
}

// leashEnv is what derivation may know of this evaluation: its directory
// and environment, and the bindings visible from sc.
func (t *thread) leashEnv(sc *scope) leash.Env {
	if sc == nil {
		sc = t.root
	}
	home, _ := t.getenv("HOME")
	return leash.Env{
		Registry: t.reg(),
		Dir:      t.dir,
		Home:     home,
		Trash:    t.in.TrashRoot(t.env),
		// Value bindings only: functions and aliases answer Function and
		// Alias, whose bodies derivation follows.
		IsBound: func(name string) bool {
			b := sc.lookup(name)
			if b == nil {
				return false
			}
			switch x := b.val.(type) {
			case *Closure:
				return x.Name == ""
			case *CmdRef:
				return false
			}
			return true
		},
		TypeOf: func(name string) string {
			if v, ok := sc.get(name); ok {
				return value.TypeName(v)
			}
			return ""
		},
		Function: func(name string) (*syntax.FnDecl, bool) {
			v, ok := sc.get(name)
			c, isFn := v.(*Closure)
			if !ok || !isFn || c.Name == "" {
				return nil, false
			}
			body, _ := c.Body.(*syntax.Block)
			if body == nil {
				return nil, true
			}
			return &syntax.FnDecl{Name: c.Name, Params: c.Params, Rest: c.Rest, Body: body}, true
		},
		Alias: func(name string) (*syntax.CmdCall, bool) {
			v, ok := sc.get(name)
			a, isAlias := v.(*CmdRef)
			if !ok || !isAlias {
				return nil, false
			}
			return a.Call, true
		},
		Adapter: AdapterDeriver(t.in.opts.Adapters),
	}
}

// planRecord is the record plan and explain return: the effects as text,
// whether every one is reversible, whether any may start a process.
func planRecord(p *leash.Plan, first string, firstVal value.Value) *value.Record {
	items := make([]value.Value, len(p.Effects))
	spawns := p.Opaque
	for i, e := range p.Effects {
		items[i] = value.Str(effectText(e))
		spawns = spawns || e.Kind == host.ProcSpawn
	}
	reversible := !p.Opaque && p.Reversibility == leash.Reversible
	return value.NewRecord(
		[]string{first, "effects", "reversible", "spawns"},
		[]value.Value{firstVal, value.NewList(items), value.Bool(reversible), value.Bool(spawns)})
}

// effectText renders one effect as `kind subject`: the path, the argv, the
// variable or fact name; a subject known only at run time is marked.
func effectText(e leash.Effect) string {
	subject := e.Path
	switch {
	case len(e.Argv) > 0:
		subject = strings.Join(e.Argv, " ")
	case e.Program != "":
		subject = e.Program
	case subject == "":
		subject = e.Name
	}
	if e.Dynamic {
		if subject == "" {
			return string(e.Kind) + " (computed at run time)"
		}
		return string(e.Kind) + " " + subject + " (computed at run time)"
	}
	if subject == "" {
		return string(e.Kind)
	}
	return string(e.Kind) + " " + subject
}

// runPlan is `plan COMMAND ARGS…` or `plan { … }`: it derives the program's
// plan without running anything, stores the program and returns
// {id, effects, reversible, spawns}.
func runPlan(c *BuiltinCall) (value.Value, error) {
	call := c.Syntax
	usage := "plan COMMAND ARGS… or plan { … }"
	if call == nil {
		return nil, c.Errorf(codeArg, "takes a command or a block, not values").WithHint(usage)
	}
	var prog *syntax.Program
	switch {
	case call.Trailing != nil && len(call.Args) == 0:
		prog = &syntax.Program{Stmts: call.Trailing.Stmts}
	case call.Trailing == nil && len(call.Args) > 0:
		head := call.Args[0]
		if head.Kind != syntax.ArgWord && head.Kind != syntax.ArgPath {
			return nil, c.Errorf(codeArg, "the command to plan must be a word or a path").WithHint(usage)
		}
		inner := &syntax.CmdCall{Head: head, Args: call.Args[1:], Span: call.Span}
		prog = &syntax.Program{Stmts: []syntax.Stmt{&syntax.ExprStmt{X: &syntax.Cmd{Call: inner, Span: call.Span}, Span: call.Span}}}
	default:
		return nil, c.Errorf(codeArg, "takes either a command or one block").WithHint(usage)
	}
	p := leash.Derive(prog, c.t.leashEnv(c.sc))
	id, err := c.t.in.plans.put(prog, int(call.Span.End-call.Span.Start))
	if err != nil {
		return nil, err
	}
	return planRecord(p, "id", value.Int(id)), nil
}

// runExplain is `explain 'source'`: the plan of a source string, stored
// nowhere.
func runExplain(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, c.Errorf(codeArg, "takes one source string").WithHint("explain 'rm old.log'")
	}
	src, ok := c.Args[0].(value.Str)
	if !ok {
		return nil, c.Errorf(codeArg, "takes a source string, got %s", value.TypeName(c.Args[0])).WithHint("explain 'rm old.log'")
	}
	sc := c.sc
	if sc == nil {
		sc = c.t.root
	}
	prog, err := syntax.Parse(string(src), syntax.ParseOptions{IsBound: func(name string) bool { return sc.lookup(name) != nil }})
	if err != nil {
		if pe, ok := err.(*syntax.Error); ok {
			return nil, errorf(value.CodeParse, "explain: %s", pe.Msg).WithHint(pe.Hint)
		}
		return nil, err
	}
	return planRecord(leash.Derive(prog, c.t.leashEnv(sc)), "source", src), nil
}

// runApply is `apply p`: p is a record from plan, its id, or the id as a
// numeric string. The stored program runs here, through the same gate as
// everything else; its result is apply's.
func runApply(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, c.Errorf(codeArg, "takes one plan").WithHint("let p = (plan { … }); apply p")
	}
	sc := c.sc
	if sc == nil {
		sc = c.t.root
	}
	arg := c.Args[0]
	if s, ok := arg.(value.Str); ok {
		// `apply p`: a command word naming a binding means its value.
		if _, err := strconv.Atoi(string(s)); err != nil {
			if v, bound := sc.get(string(s)); bound {
				arg = v
			}
		}
	}
	id, bad := planID(arg)
	if bad != "" {
		return nil, c.Errorf(codeArg, "%s", bad).WithHint("pass the record plan returned, or its id")
	}
	prog, ok := c.t.in.plans.get(id)
	if !ok {
		return nil, c.Errorf(codeNotFound, "no stored plan %d", id).
			WithHint("plans live in this session only; the oldest are dropped past " + strconv.Itoa(MaxStoredPlans))
	}
	v, err := c.t.evalStmts(prog.Stmts, newScope(sc), modeFinal)
	if err != nil {
		if f, ok := err.(*flow); ok && f.kind == flowReturn {
			return f.val, nil
		}
		return nil, err
	}
	return v, nil
}

// planID reads the plan id from apply's argument, or says what is wrong
// with it.
func planID(v value.Value) (int, string) {
	switch x := v.(type) {
	case *value.Record:
		idv, ok := x.Get("id")
		if !ok {
			return 0, "a record without an id is not a plan"
		}
		return planID(idv)
	case value.Int:
		if x < 1 || int64(x) > int64(^uint32(0)>>1) {
			return 0, "plan id " + strconv.FormatInt(int64(x), 10) + " is out of range"
		}
		return int(x), ""
	case value.Str:
		n, err := strconv.Atoi(strings.TrimSpace(string(x)))
		if err != nil || n < 1 {
			return 0, strconv.Quote(string(x)) + " is not a plan id"
		}
		return n, ""
	}
	return 0, "takes a plan record or id, got " + value.TypeName(v)
}
