package eval

import (
	"io"

	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
	"strings"
)

// adaptedRun is what a command adapter adds to running a program: the
// exit statuses that count as success and the parser for its stdout.
type adaptedRun struct {
	okCodes []int
	spec    *adapters.Spec
	args    map[string]adapters.Arg // the bound call's arguments (nil for a block)
}

// Adapters is the session's command-adapter catalog (nil: none).
func (in *Interp) Adapters() *adapters.Catalog { return in.opts.Adapters }

// runAdapted runs a call through its command adapter: the words are bound
// to the declaration (a mistyped value is an arg_error and nothing
// starts), the pinned argv runs as an external program, and its stdout is
// parsed into the outcome's out when it keeps the parser's contract. A
// call the declaration does not model passes through: the program runs
// with the words as written and its output stays raw, as any program's.
func (t *thread) runAdapted(ad *adapters.Command, call *syntax.CmdCall, sc *scope, m mode, o *cmdOpts, redir *redirects) (value.Value, error) {
	vals, err := t.cmdValues(call, sc, o)
	if err != nil {
		return nil, err
	}
	words := make([]adapters.Word, 0, len(vals))
	for _, cv := range vals {
		switch {
		case cv.dashdash:
			words = append(words, adapters.Word{Kind: adapters.DashDash})
		case cv.short != "":
			words = append(words, adapters.Word{Kind: adapters.Short, Name: cv.short})
		case cv.flag != "":
			words = append(words, adapters.Word{Kind: adapters.Long, Name: cv.flag, Value: cv.v})
		default:
			v := cv.v
			if oc, ok := v.(*value.Outcome); ok {
				if v, err = t.outcomeOut(oc); err != nil {
					return nil, err
				}
			}
			words = append(words, adapters.Word{Kind: adapters.Positional, Value: v})
		}
	}
	bind := adapters.Bind
	if redir != nil && redir.out != "" {
		bind = adapters.BindRaw
	}
	b, err := bind(ad, words)
	if err != nil {
		return nil, err
	}
	pieces := make([]cmdValue, 0, len(b.Argv))
	for _, p := range b.Argv {
		switch {
		case p.Value == nil:
			pieces = append(pieces, cmdValue{v: value.Str(p.Prefix)})
		case p.Prefix == "":
			g, isGlob := p.Value.(*value.Glob)
			if isGlob && !p.Expand {
				pieces = append(pieces, cmdValue{v: value.Str(g.Pattern)})
			} else {
				pieces = append(pieces, cmdValue{v: p.Value, glob: isGlob})
			}
		default:
			s, err := argText(p.Value)
			if err != nil {
				return nil, err
			}
			pieces = append(pieces, cmdValue{v: value.Str(p.Prefix + s)})
		}
	}
	args, err := t.argv(pieces)
	if err != nil {
		return nil, err
	}
	prog, view, err := t.resolveProgram(&syntax.CmdArg{Kind: syntax.ArgWord, Text: ad.Bin})
	if err != nil {
		if e, ok := err.(*value.Error); ok && strings.HasPrefix(e.Code, "reef_") {
			return nil, err // Reef refused a name it constrains
		}
		if e, ok := err.(*value.Error); ok && e.Code == codeNotFound {
			return nil, t.notFound(ad.Bin, sc)
		}
		return nil, err
	}
	if view != "" {
		if redir == nil {
			redir = &redirects{}
		}
		redir.path = view // the Reef view Reef put in front of PATH
	}
	return t.spawnExternal(ad.Name, prog, args, redir, m, &adaptedRun{okCodes: b.OkCodes(), spec: b.Spec, args: b.Args})
}

// runInterpreterAdapter runs an interpreter block through an
// interpreter-class adapter: its binary (python: python3), its invoke
// template, then the body as one argument or, with invoke_payload =
// "stdin", on standard input; its ok codes and parser apply.
func (t *thread) runInterpreterAdapter(ad *adapters.Command, src string, stdin []byte, m mode) (value.Value, error) {
	prog, err := t.host.LookPath(t.ctx, ad.Bin, t.env)
	if err != nil {
		if gateStop(err) {
			return nil, hostError(err)
		}
		return nil, errorf(codeNotFound, "interpreter not found: %s (the %s adapter runs %s)", ad.Bin, ad.Name, ad.Bin)
	}
	args := append([]string(nil), ad.BlockInvoke...)
	r := &redirects{}
	if ad.Payload == "stdin" {
		if stdin != nil {
			return nil, errorf(codeFeed, "%s reads its program on stdin, so it cannot also be fed data", ad.Name)
		}
		r.in, r.hasIn = []byte(src), true
	} else {
		args = append(args, src)
	}
	if stdin != nil {
		r.in, r.hasIn = stdin, true
	}
	return t.spawnExternal(ad.Name, prog, args, r, m, &adaptedRun{okCodes: ad.OkCodes, spec: ad.Top})
}

// finishAdapted applies an adapter's ok codes and parser to an outcome.
// Output that lost bytes (or that nothing reads again: skip), or that
// does not parse, stays raw.
func (t *thread) finishAdapted(o *value.Outcome, ar *adaptedRun, skip bool) error {
	if ar == nil {
		return nil
	}
	o.OkCodes = ar.okCodes
	if skip {
		return nil
	}
	v, ok := adapters.ParseCall(ar.spec, ar.args, o.Stdout)
	if !ok {
		return nil
	}
	kept, err := t.keep(v, nil)
	if err != nil {
		return err
	}
	o.Out = kept
	return nil
}

// showAdapted shows a parsed outcome in statement position: the lines
// its parser puts first (git status: the branch line), then its value.
func (t *thread) showAdapted(o *value.Outcome, ar *adaptedRun) {
	lines, v := adapters.Shown(ar.spec, o.Stdout, o.Out)
	for _, l := range lines {
		_, _ = io.WriteString(t.stdout, l+"\n")
	}
	if v != nil {
		t.emit(v)
	}
}

// AdapterDeriver is what plan derivation knows of cat's commands
// (leash.Env.Adapter): a call is bound to its declaration with the words
// known before running, giving the pinned argv and the declared effects,
// or the reason the call is refused. Nil for a nil catalog.
func AdapterDeriver(cat *adapters.Catalog) func(c *syntax.CmdCall) (leash.Adapted, bool) {
	if cat == nil || cat.Len() == 0 {
		return nil
	}
	return func(c *syntax.CmdCall) (leash.Adapted, bool) {
		if c.Head == nil || c.Head.Kind != syntax.ArgWord || c.Forced {
			return leash.Adapted{}, false
		}
		ad, ok := cat.Lookup(c.Head.Text)
		if !ok {
			return leash.Adapted{}, false
		}
		words := make([]adapters.Word, 0, len(c.Args))
		for _, a := range c.Args {
			words = append(words, staticAdapterWord(a))
		}
		bind := adapters.Bind
		for _, r := range c.Redirects {
			if r.Kind == syntax.RedirOut || r.Kind == syntax.RedirAppend {
				bind = adapters.BindRaw
			}
		}
		b, err := bind(ad, words)
		if err != nil {
			msg := err.Error()
			if e, ok := err.(*value.Error); ok {
				msg = e.Code + ": " + e.Msg
			}
			return leash.Adapted{Refused: msg}, true
		}
		argv := []string{ad.Bin}
		for _, p := range b.Argv {
			switch {
			case p.Unknown:
				argv = append(argv, p.Prefix+leash.DynamicArg)
			case p.Value == nil:
				argv = append(argv, p.Prefix)
			default:
				s, err := argText(p.Value)
				if err != nil {
					s = leash.DynamicArg
				}
				argv = append(argv, p.Prefix+s)
			}
		}
		out := leash.Adapted{Program: ad.Bin, Argv: argv, Pass: b.Pass}
		for _, e := range b.Effects() {
			out.Effects = append(out.Effects, leash.AdaptedEffect{Kind: host.Effect(e.Kind), Target: e.Target, Dynamic: e.Dynamic})
		}
		return out, true
	}
}

// staticAdapterWord is a command word as far as it is known before
// running.
func staticAdapterWord(a *syntax.CmdArg) adapters.Word {
	switch a.Kind {
	case syntax.ArgDashDash:
		return adapters.Word{Kind: adapters.DashDash}
	case syntax.ArgShortFlag:
		return adapters.Word{Kind: adapters.Short, Name: a.Text}
	case syntax.ArgLongFlag:
		w := adapters.Word{Kind: adapters.Long, Name: a.Name}
		if a.Value != nil {
			if s, ok := leash.StaticWord(a.Value); ok {
				w.Value = value.Str(s)
			} else {
				w.Unknown = true
			}
		}
		return w
	case syntax.ArgPath:
		return adapters.Word{Kind: adapters.Positional, Value: value.Path(a.Text)}
	case syntax.ArgGlob:
		return adapters.Word{Kind: adapters.Positional, Value: &value.Glob{Pattern: a.Text}}
	case syntax.ArgDash:
		return adapters.Word{Kind: adapters.Positional, Value: value.Str("-")}
	}
	if s, ok := leash.StaticWord(a); ok {
		return adapters.Word{Kind: adapters.Positional, Value: value.Str(s)}
	}
	return adapters.Word{Kind: adapters.Positional, Unknown: true}
}
