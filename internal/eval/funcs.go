package eval

import (
	"time"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Func is one value function of the registry: its implementation and its
// effect declaration (what leash.Derive records for `name(args…)`).
type Func struct {
	Name string
	// Call runs the function with its evaluated arguments (a library
	// package's code, like a builtin's Run, sees only FuncCall's exported
	// API; eval's own functions are onThread adapters).
	Call    func(c *FuncCall, args value.Args) (value.Value, error)
	Effects func(d *leash.Deriver)
	// Help is what `help NAME` shows; every function has one.
	Help Help
}

func registerFuncs(p *Part) {
	for _, f := range []*Func{
		{Name: "path", Call: onThread(fnPath), Help: Help{Summary: "a path value from text", Usage: "path(TEXT)", Example: "path(\"src/main.go\").name"}, Effects: EffNone},
		{Name: "glob", Call: onThread(fnGlob), Help: Help{Summary: "a glob pattern value; used as an argument it expands to paths", Usage: "glob(PATTERN)", Example: "glob(\"**/*.go\")"}, Effects: EffNone},
		{Name: "regex", Call: onThread(fnRegex), Help: Help{Summary: "a regular expression value", Usage: "regex(PATTERN)", Example: "\"v1.2\".matches(regex(\"^v[0-9]\"))"}, Effects: EffNone},
		{Name: "now", Effects: effClock, Help: Help{Summary: "the current date and time", Usage: "now()", Example: "now().year()"},
			Call: onThread(func(t *thread, a value.Args) (value.Value, error) { return clockFn(t, "now", a, t.now) })},
		{Name: "today", Effects: effClock, Help: Help{Summary: "today's date at midnight", Usage: "today()", Example: "today()"},
			Call: onThread(func(t *thread, a value.Args) (value.Value, error) { return clockFn(t, "today", a, t.today) })},
		{Name: "assert", Call: onThread(fnAssert), Help: Help{Summary: "raise assert_failed unless the condition is true", Usage: "assert(COND, [MESSAGE])", Example: "assert(1 + 1 == 2, \"arithmetic\")"}, Effects: EffNone},
		// retry calls a closure, counted where it is written.
		{Name: "retry", Call: onThread(fnRetry), Help: Help{Summary: "call a block until it succeeds, at most N attempts", Usage: "retry(N) { ... }", Example: "retry(3) { ^test -f notes.txt }"}, Effects: EffNone},
		{Name: "run", Call: onThread(fnRun), Help: Help{Summary: "run a script file or program, its arguments as values", Usage: "run(TARGET, ARG...)", Example: "run(\"./build.shl\", \"release\")"}, Effects: effRunCall},
		// channels.go
		{Name: "channel", Call: onThread(fnChannel), Help: Help{Summary: "a named event channel to publish to or read from", Usage: "channel(NAME)", Example: "channel(\"user.build\").events()"}, Effects: EffNone},
		// fanout.go: the handler and thunks are closures, counted where
		// they are written.
		{Name: "on", Call: onThread(fnOn), Help: Help{Summary: "call a handler with each event of a channel, in a background task", Usage: "on(CHANNEL, HANDLER)", Example: "let t = on(\"user.build\", ev => { touch \"got\" })"}, Effects: EffNone},
		{Name: "parallel", Call: onThread(fnParallel), Help: Help{Summary: "run zero-argument functions as tasks (at most 16 at once) and return their results in order", Usage: "parallel(F..., settle: BOOL)", Example: "parallel(() => 1, () => 2)"}, Effects: EffNone},
	} {
		p.Func(f)
	}
}

func noArgs(name string, a value.Args) error {
	if len(a.Pos) > 0 || len(a.Named) > 0 {
		return errorf(codeArg, "%s takes no arguments", name)
	}
	return nil
}

// clockFn is now() or today() called as a function: arguments are checked
// before the clock is asked.
func clockFn(t *thread, name string, a value.Args, read func() (value.Value, error)) (value.Value, error) {
	if err := noArgs(name, a); err != nil {
		return nil, err
	}
	return read()
}

// now reads the wall clock (the time effect).
func (t *thread) now() (value.Value, error) {
	n, err := t.Clock()
	if err != nil {
		return nil, err
	}
	return value.DateTime{T: n}, nil
}

// today is the start of the current day (the time effect).
func (t *thread) today() (value.Value, error) {
	n, err := t.Clock()
	if err != nil {
		return nil, err
	}
	return value.DateTime{T: time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, n.Location())}, nil
}

// unboundVar resolves a name with no binding: clocks, namespaces, builtin
// commands run in value position, evaluator functions as values.
func (t *thread) unboundVar(n *syntax.Var, sc *scope) (value.Value, error) {
	switch n.Name {
	case "now":
		return t.now()
	case "today":
		return t.today()
	}
	if ns, ok := t.namespace(n.Name); ok {
		return ns, nil
	}
	if b, ok := t.reg().lookupBuiltin(n.Name); ok {
		return t.invokeBuiltin(b, &BuiltinCall{Name: n.Name, sc: sc}, modeValue, nil)
	}
	if f, ok := t.reg().lookupFunc(n.Name); ok {
		return &value.Builtin{Name: n.Name, Fn: func(env value.Env, a value.Args) (value.Value, error) {
			th, ok := env.(*thread)
			if !ok {
				th = t
			}
			return f.Call(th.funcCall(f.Name), a)
		}}, nil
	}
	return nil, t.undefinedVar(n.Name, sc)
}

// namespace resolves a namespace name (json, math, os, ...).
func (t *thread) namespace(name string) (value.Value, bool) {
	ns, ok := t.reg().namespace(name)
	if !ok {
		return nil, false
	}
	if ns.Value == nil {
		return t.in.config, true
	}
	return ns.Value, true
}

func fnPath(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, errorf(codeArg, "path takes one str argument")
	}
	s, err := pathText(a.Pos[0])
	if err != nil {
		return nil, err
	}
	return value.Path(t.expandHome(s)), nil
}

func fnGlob(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 {
		return nil, errorf(codeArg, "glob takes one pattern")
	}
	s, ok := a.Pos[0].(value.Str)
	if !ok {
		return nil, errorf(codeType, "glob pattern must be str, got %s", value.TypeName(a.Pos[0]))
	}
	g := &value.Glob{Pattern: string(s)}
	for _, na := range a.Named {
		switch na.Name {
		case "hidden":
			b, ok := na.Value.(value.Bool)
			if !ok {
				return nil, errorf(codeType, "glob hidden: expects bool")
			}
			g.Hidden = bool(b)
		case "follow":
		default:
			return nil, errorf(codeArg, "unknown argument `%s`", na.Name)
		}
	}
	return g, nil
}

func fnRegex(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, errorf(codeArg, "regex takes one str argument")
	}
	s, ok := a.Pos[0].(value.Str)
	if !ok {
		return nil, errorf(codeType, "regex pattern must be str, got %s", value.TypeName(a.Pos[0]))
	}
	return compileRegex(string(s))
}

func fnAssert(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) < 1 || len(a.Pos) > 2 {
		return nil, errorf(codeArg, "assert takes a condition and an optional message")
	}
	ok, err := value.Truthy(a.Pos[0])
	if err != nil {
		return nil, err
	}
	if ok {
		return value.Nil, nil
	}
	msg := "assertion failed"
	if len(a.Pos) == 2 {
		msg += ": " + value.Interp(a.Pos[1])
	}
	return nil, errorf(codeAssert, "%s", msg)
}

// fnRetry calls a thunk up to n times and returns its first success.
func fnRetry(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 2 {
		return nil, errorf(codeArg, "retry takes an attempt count and a function: retry(3) { ... }")
	}
	n, ok := a.Pos[0].(value.Int)
	if !ok || n < 1 {
		return nil, errorf(codeArg, "retry attempts must be a positive int")
	}
	var delay time.Duration
	for _, na := range a.Named {
		switch na.Name {
		case "delay":
			d, ok := na.Value.(value.Duration)
			if !ok || d < 0 {
				return nil, errorf(codeType, "retry delay: expects a non-negative duration")
			}
			delay = time.Duration(d)
		default:
			return nil, errorf(codeArg, "unknown argument `%s`", na.Name)
		}
	}
	var last error
	for i := 0; i < int(n); i++ {
		if i > 0 && delay > 0 {
			if err := t.sleep(delay); err != nil {
				return nil, err
			}
		}
		v, err := t.callValue(a.Pos[1], nil, nil, syntax.Span{})
		if err == nil {
			return v, nil
		}
		if _, ok := recoverable(err); !ok {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// sleep waits for d or until the evaluation is cancelled.
func (t *thread) sleep(d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	var err error
	t.unlocked(func() {
		select {
		case <-tm.C:
		case <-t.ctx.Done():
			err = hostError(t.ctx.Err())
		}
	})
	return err
}

func fnRun(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) == 0 {
		return nil, errorf(codeArg, "run needs a target")
	}
	args, err := argTexts(a.Pos[1:])
	if err != nil {
		return nil, err
	}
	return t.runTarget(a.Pos[0], args, modeValue)
}
