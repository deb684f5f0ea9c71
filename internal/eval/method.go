package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// HostMethod is a value method that needs the evaluator's context (the
// host gate, the working directory): filesystem path methods, `.save`.
type HostMethod func(c *MethodCall, recv value.Value, args value.Args) (value.Value, error)

// MethodCall gives a HostMethod access to the evaluation context.
type MethodCall struct {
	Name string
	t    *thread
}

// Thread exposes the context the method runs in.
func (c *MethodCall) Thread() *Context { return &Context{t: c.t} }

// evalMethodCall evaluates `x.name(args)` and `x?.name(args)`.
func (t *thread) evalMethodCall(n *syntax.MethodCall, sc *scope) (value.Value, error) {
	if n.Name == "feed" {
		if v, ok, err := t.evalFeed(n, sc); ok {
			return v, err
		}
	}
	recv, err := t.eval(n.X, sc)
	if err != nil {
		return nil, err
	}
	if n.Optional && recv.Kind() == value.KNull {
		return value.Nil, nil
	}
	if ns, ok := recv.(*value.Namespace); ok {
		v, err := t.callNamespace(ns, n, sc)
		return v, atMethodName(err, n)
	}
	args, err := t.evalArgs(n.Args, n.Trailing, sc)
	if err != nil {
		return nil, err
	}
	v, err := t.callMethod(recv, n.Name, args)
	return v, atMethodName(err, n)
}

// atMethodName points an error the call itself raised (an unknown
// method, its arguments refused, its own failure) at the method's name,
// not at the whole call with its receiver; an error that already has a
// place (raised inside a closure it called) keeps it.
func atMethodName(err error, n *syntax.MethodCall) error {
	if err == nil || n.NameSpan.End <= n.NameSpan.Start {
		return err
	}
	return withSpan(err, n.NameSpan)
}

func (t *thread) callNamespace(ns *value.Namespace, n *syntax.MethodCall, sc *scope) (value.Value, error) {
	m, ok := ns.Members[n.Name]
	if !ok {
		e := errorf(codeField, "%s has no member `%s`", ns.Name, n.Name)
		if s := suggest(n.Name, memberNames(ns)); s != "" {
			e.Hint = "did you mean `" + ns.Name + "." + s + "`?"
		}
		return nil, e
	}
	switch m.(type) {
	case *value.Builtin, *Closure:
	default:
		return nil, errorf(codeField, "`%s.%s` is a constant, not a function", ns.Name, n.Name).
			WithHint("read it without parentheses: " + ns.Name + "." + n.Name)
	}
	args, err := t.evalArgs(n.Args, n.Trailing, sc)
	if err != nil {
		return nil, err
	}
	return t.callValue(m, args.Pos, args.Named, n.Span)
}

func memberNames(ns *value.Namespace) []string {
	out := make([]string, 0, len(ns.Members))
	for k := range ns.Members {
		out = append(out, k)
	}
	return out
}

// callMethod dispatches a method on an evaluated receiver.
func (t *thread) callMethod(recv value.Value, name string, args value.Args) (value.Value, error) {
	if v, ok, err := t.callKnownMethod(recv, name, args); ok {
		return v, err
	}
	if r, ok := recv.(*value.Record); ok {
		if f, ok := r.Get(name); ok {
			switch f.(type) {
			case *Closure, *value.Builtin, *CmdRef:
				return t.callValue(f, args.Pos, args.Named, syntax.Span{})
			}
		}
	}
	return nil, unknownMethod(recv, name)
}

// callKnownMethod runs the method name on recv when one exists; ok is
// false when there is none.
func (t *thread) callKnownMethod(recv value.Value, name string, args value.Args) (value.Value, bool, error) {
	switch name {
	case "tap", "also":
		if len(args.Pos) != 1 || len(args.Named) != 0 {
			return nil, true, errorf(codeArg, ".%s takes one function", name)
		}
		if _, err := t.callValue(args.Pos[0], []value.Value{recv}, nil, syntax.Span{}); err != nil {
			return nil, true, err
		}
		return recv, true, nil
	}
	switch r := recv.(type) {
	case value.Str:
		if h, ok := contentRefHash(string(r)); ok {
			v, err := t.callContentRef(string(r), h, name, args)
			return v, true, err
		}
	case *value.Outcome:
		if len(args.Pos) == 0 && len(args.Named) == 0 {
			if v, ok, err := t.outcomeField(r, name); ok || err != nil {
				return v, true, err
			}
		}
		if m, ok := t.reg().lookupHostMethod(value.KOutcome, name); ok {
			v, err := m(&MethodCall{Name: name, t: t}, recv, args)
			return v, true, err
		}
		out, err := t.outcomeOut(r)
		if err != nil {
			return nil, true, err
		}
		if v, ok, err := t.callKnownMethod(out, name, args); ok {
			return v, true, err
		}
		return nil, true, unknownMethod(out, name)
	case *value.Glob:
		if name == "pattern" {
			return value.Str(r.Pattern), true, nil
		}
		if m, ok := t.reg().lookupHostMethod(value.KGlob, name); ok {
			v, err := m(&MethodCall{Name: name, t: t}, recv, args)
			return v, true, err
		}
		list, err := t.expandGlob(r)
		if err != nil {
			return nil, true, err
		}
		if name == "expand" {
			return list, true, nil
		}
		return t.callKnownMethod(list, name, args)
	case *value.Stream:
		v, err := t.callStreamMethod(r, name, args)
		return v, true, err
	case *value.Record:
		if ch, ok := channelName(r); ok {
			if v, ok, err := t.callChannelMethod(ch, name, args); ok {
				return v, true, err
			}
		}
	case *value.Error:
		if len(args.Pos) == 0 && len(args.Named) == 0 {
			if v, ok := errorField(r, name); ok {
				return v, true, nil
			}
		}
	}
	k := recv.Kind()
	if m, ok := t.reg().lookupHostMethod(k, name); ok {
		v, err := m(&MethodCall{Name: name, t: t}, recv, args)
		return v, true, err
	}
	if m, ok := value.LookupMethod(k, name); ok {
		v, err := m(t, recv, args)
		return v, true, err
	}
	return nil, false, nil
}
