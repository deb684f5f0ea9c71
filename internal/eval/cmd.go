package eval

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// cmdOpts carries what a caller adds to a command invocation.
type cmdOpts struct {
	extra        []cmdValue // arguments appended after the written ones (alias calls)
	stdin        []byte     // bytes for standard input (.feed)
	hasStdin     bool
	skipBindings bool // resolving an alias target: bindings do not apply
}

// runCmd resolves and runs a command call in mode m: session callables,
// aliases, bound values, builtins, scripts, then external programs.
func (t *thread) runCmd(call *syntax.CmdCall, sc *scope, m mode, o *cmdOpts) (value.Value, error) {
	if call.Background {
		return t.runBackground(call, sc)
	}
	if o == nil {
		o = &cmdOpts{}
	}
	if sc == nil {
		sc = t.root
	}
	tt := t
	if len(call.Env) > 0 {
		tt = t.child()
		tt.top = t.top
		for _, p := range call.Env {
			cv, err := t.evalCmdArg(p.Value, sc)
			if err != nil {
				return nil, withSpan(err, p.Span)
			}
			s, err := argText(cv.v)
			if err != nil {
				return nil, withSpan(err, p.Span)
			}
			tt.env = withEnv(tt.env, p.Name, s)
		}
	}
	v, err := tt.dispatchCmd(call, sc, m, o)
	if err != nil {
		return nil, withSpan(err, call.Span)
	}
	if tt != t {
		// The child only scoped the environment prefix: navigation done
		// by the command (`FOO=1 cd x`) is the caller's.
		t.dir, t.oldpwd, t.dirStack = tt.dir, tt.oldpwd, tt.dirStack
	}
	return v, nil
}

func (t *thread) dispatchCmd(call *syntax.CmdCall, sc *scope, m mode, o *cmdOpts) (value.Value, error) {
	head := call.Head
	name := head.Text
	if head.Kind == syntax.ArgWord && !o.skipBindings {
		if b := sc.lookup(name); b != nil {
			switch fn := b.val.(type) {
			case *Closure:
				return t.callWords(fn, call, sc, m, o)
			case *value.Builtin:
				vals, err := t.cmdValues(call, sc, o)
				if err != nil {
					return nil, err
				}
				pos, flags, err := t.builtinArgs(vals, false, nil)
				if err != nil {
					return nil, err
				}
				named := make([]value.NamedArg, 0, len(flags))
				for _, f := range flags {
					fv := f.Value
					if fv == nil {
						fv = value.Bool(true)
					}
					named = append(named, value.NamedArg{Name: f.Name, Value: fv})
				}
				return t.callValue(fn, pos, named, call.Span)
			case *CmdRef:
				return t.runAlias(fn, call, sc, m, o)
			default:
				if !call.Forced && len(call.Args) == 0 && len(o.extra) == 0 && len(call.Redirects) == 0 {
					return b.val, nil
				}
			}
		}
	}
	bare := !call.Forced && len(call.Args) == 0 && len(o.extra) == 0 && len(call.Redirects) == 0 && !o.hasStdin
	if bare && head.Kind == syntax.ArgWord && m == modeValue {
		if ns, ok := t.namespace(name); ok {
			return ns, nil
		}
	}
	redir, err := t.evalRedirects(call.Redirects, sc)
	if err != nil {
		return nil, err
	}
	if o.hasStdin {
		if redir.hasIn {
			return nil, errorf(codeArg, "a command cannot both be fed and redirect stdin")
		}
		redir.in, redir.hasIn = o.stdin, true
	}
	if head.Kind == syntax.ArgWord {
		if b, ok := t.reg().lookupBuiltin(name); ok {
			if b.Quoted {
				bc := &BuiltinCall{Name: name, Syntax: call, sc: sc}
				return t.invokeBuiltin(b, bc, m, redir)
			}
			vals, err := t.cmdValues(call, sc, o)
			if err != nil {
				return nil, err
			}
			pos, flags, err := t.builtinArgs(vals, b.Verbatim, b.Flags)
			if err != nil {
				return nil, err
			}
			bc := &BuiltinCall{Name: name, Args: pos, Flags: flags, sc: sc}
			if redir.hasIn {
				bc.Stdin = redir.in
			}
			return t.invokeBuiltin(b, bc, m, redir)
		}
	}
	if head.Kind == syntax.ArgWord && !call.Forced {
		if ad, ok := t.in.opts.Adapters.Lookup(name); ok {
			return t.runAdapted(ad, call, sc, m, o, redir)
		}
	}
	if head.Kind == syntax.ArgPath && strings.HasSuffix(name, ".shl") {
		vals, err := t.cmdValues(call, sc, o)
		if err != nil {
			return nil, err
		}
		args, err := t.argv(vals)
		if err != nil {
			return nil, err
		}
		return t.runScriptFile(t.abs(name), args)
	}
	prog, view, err := t.resolveProgram(head)
	if err != nil {
		if e, ok := err.(*value.Error); ok && strings.HasPrefix(e.Code, "reef_") {
			return nil, err // Reef refused a name it constrains
		}
		if head.Kind == syntax.ArgWord && m == modeValue && bare {
			return nil, t.undefinedVar(name, sc)
		}
		if e, ok := err.(*value.Error); ok && e.Code == codeNotFound {
			return nil, t.notFoundOnPath(name, sc)
		}
		return nil, err
	}
	vals, err := t.cmdValues(call, sc, o)
	if err != nil {
		return nil, err
	}
	args, err := t.argv(vals)
	if err != nil {
		return nil, err
	}
	redir.path = view
	return t.runExternal(name, prog, args, redir, m)
}

// cmdValues evaluates the written arguments plus any appended ones.
func (t *thread) cmdValues(call *syntax.CmdCall, sc *scope, o *cmdOpts) ([]cmdValue, error) {
	vals, err := t.evalCmdArgs(call.Args, sc)
	if err != nil {
		return nil, err
	}
	if call.Trailing != nil {
		vals = append(vals, cmdValue{v: &Closure{Body: call.Trailing, env: sc}})
	}
	return append(vals, o.extra...), nil
}

// runAlias expands an alias: its stored call with this call's arguments,
// redirects and environment appended; the target head ignores bindings.
func (t *thread) runAlias(a *CmdRef, call *syntax.CmdCall, sc *scope, m mode, o *cmdOpts) (value.Value, error) {
	if t.depth >= maxEvalDepth {
		return nil, errorf(codeRecursion, "alias %s expands too deeply (recursion limit: calls and expressions nest at most %d deep)", a.Name, maxEvalDepth)
	}
	merged := *a.Call
	merged.Args = append(append([]*syntax.CmdArg(nil), a.Call.Args...), call.Args...)
	merged.Redirects = append(append([]*syntax.Redirect(nil), a.Call.Redirects...), call.Redirects...)
	merged.Env = append(append([]*syntax.EnvPrefix(nil), a.Call.Env...), call.Env...)
	if call.Trailing != nil {
		merged.Trailing = call.Trailing
	}
	no := *o
	no.skipBindings = merged.Head.Text == a.Name
	t.depth++
	defer func() { t.depth-- }()
	return t.runCmd(&merged, sc, m, &no)
}

// resolveProgram finds the executable for a head word or path, and the
// child's PATH when Reef bound it ("" to keep the session's).
func (t *thread) resolveProgram(head *syntax.CmdArg) (string, string, error) {
	name := head.Text
	if head.Kind == syntax.ArgPath || strings.ContainsRune(name, '/') {
		p := t.abs(name)
		if _, err := t.host.Stat(t.ctx, p); err != nil {
			return "", "", hostError(err)
		}
		return p, "", nil
	}
	if p, view, ok, err := t.reefResolveHead(name); ok {
		// Some scope constrains the name: Reef binds it or refuses; PATH
		// is not consulted behind its back.
		return p, view, err
	}
	p, err := t.host.LookPath(t.ctx, name, t.env)
	if err != nil {
		if gateStop(err) {
			return "", "", hostError(err)
		}
		return "", "", errorf(codeNotFound, "command not found: %s", name)
	}
	return p, "", nil
}
