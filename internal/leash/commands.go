package leash

import (
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// cmd records the effects of one command call: its arguments, redirects,
// and what its head resolves to.
func (w *walker) cmd(c *syntax.CmdCall) {
	if c == nil || c.Head == nil {
		return
	}
	name := c.Head.Text
	resolved := c.Head.Kind == syntax.ArgWord && !c.Forced
	if resolved {
		if l, ok := w.lookup(name); ok && (l.fn != nil || l.alias != nil && !w.expanding[name]) {
			w.cmdWords(c)
			if l.fn != nil {
				w.callFn(l.fn)
			} else {
				w.aliasCall(name, l.alias, c)
			}
			return
		}
		if w.env.Function != nil {
			if d, ok := w.env.Function(name); ok {
				w.cmdWords(c)
				if d == nil {
					w.opaque(name, "the body of session function "+name+" is not available")
				} else {
					w.callFn(d)
				}
				return
			}
		}
		if w.env.Alias != nil && !w.expanding[name] {
			if t, ok := w.env.Alias(name); ok {
				w.cmdWords(c)
				if t == nil {
					w.opaque(name, "the target of session alias "+name+" is not available")
				} else {
					w.aliasCall(name, t, c)
				}
				return
			}
		}
		if b, ok := w.lookupBuiltin(name); ok && b.Command != nil {
			if b.Quoted {
				w.redirects(c)
			} else {
				w.cmdWords(c)
			}
			b.Command(&Deriver{w: w, name: name, cmd: c, flags: b.Flags})
			return
		}
	}
	w.cmdWords(c)
	if resolved && w.env.Adapter != nil {
		if ad, ok := w.env.Adapter(c); ok {
			w.adapted(name, ad)
			return
		}
	}
	if c.Head.Kind == syntax.ArgPath && strings.HasSuffix(name, ".shl") {
		// The evaluator runs a Shoal script itself, in a fresh scope.
		w.fsEffect(host.FSRead, name, Reversible)
		w.opaque(name, "running "+name+" evaluates another Shoal file, which is not analysed")
		return
	}
	w.external(c, name)
}

// cmdWords records the effects of a call's words: the expressions in its
// environment prefixes and arguments, its redirects, its trailing block.
func (w *walker) cmdWords(c *syntax.CmdCall) {
	for _, e := range c.Env {
		w.cmdArg(e.Value)
	}
	for _, a := range c.Args {
		w.cmdArg(a)
	}
	w.redirects(c)
	if c.Trailing != nil {
		w.block(c.Trailing)
	}
}

// redirects records what a call's redirects read and write.
func (w *walker) redirects(c *syntax.CmdCall) {
	for _, r := range c.Redirects {
		w.cmdArg(r.Target)
		kind, rev := host.FSWrite, Conditional
		if r.Kind == syntax.RedirIn {
			kind, rev = host.FSRead, Reversible
		}
		w.argPath(r.Target, kind, rev)
	}
}

// callAsCmd presents `name(args…)` of a command builtin as the command it
// runs: positional arguments as expression words, named ones as long flags.
func callAsCmd(name string, e *syntax.Call) *syntax.CmdCall {
	c := &syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: name}, Trailing: e.Trailing, Span: e.Span}
	for _, a := range e.Args {
		x := &syntax.CmdArg{Kind: syntax.ArgExpr, X: a.Value, Span: a.Span}
		if a.Name != "" {
			x = &syntax.CmdArg{Kind: syntax.ArgLongFlag, Name: a.Name, Value: x, Span: a.Span}
		}
		c.Args = append(c.Args, x)
	}
	return c
}

// aliasCall runs an alias target with the call's arguments appended. An
// alias does not expand again inside its own expansion.
func (w *walker) aliasCall(name string, target *syntax.CmdCall, c *syntax.CmdCall) {
	if target == nil || target.Head == nil {
		return
	}
	if len(w.expanding) >= maxCallDepth {
		w.opaque(name, "aliases nest too deeply to analyse")
		return
	}
	merged := *target
	merged.Args = append(append([]*syntax.CmdArg(nil), target.Args...), c.Args...)
	merged.Redirects = nil // the call's redirects were already counted
	merged.Env = nil
	mark(&w.expanding, name)
	w.cmd(&merged)
	delete(w.expanding, name)
}
