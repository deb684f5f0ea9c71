package leash

import (
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// builtinFn derives the effects of one builtin command from its arguments.
type builtinFn func(w *walker, c *syntax.CmdCall)

// builtins are the builtin commands and what they do. A head not listed
// here (and not a function or alias) is an external program.
var builtins map[string]builtinFn

// valueFuncs are the evaluator functions called with expression syntax
// that have no effect of their own as values.
var valueFuncs = map[string]bool{
	"path": true, "glob": true, "regex": true, "assert": true, "retry": true, "run": true, "save": true,
}

func init() {
	none := func(*walker, *syntax.CmdCall) {}
	reads := func(w *walker, c *syntax.CmdCall) { w.pathArgs(c, host.FSRead, Reversible) }
	builtins = map[string]builtinFn{
		"ls": func(w *walker, c *syntax.CmdCall) {
			if !w.pathArgs(c, host.FSRead, Reversible) {
				w.fsEffect(host.FSRead, ".", Reversible)
			}
		},
		"cat": reads, "stat": reads, "open": reads,
		"head": func(w *walker, c *syntax.CmdCall) { // head PATH [COUNT]
			if ps := positional(c); len(ps) > 0 {
				w.argPath(ps[0], host.FSRead, Reversible)
			}
		},
		"save": func(w *walker, c *syntax.CmdCall) { w.pathArgs(c, host.FSWrite, Conditional) },
		// mkdir without -p checks that each target is absent and its parent
		// a directory (with -p the host's mkdir-all does it); touch checks
		// whether each target exists.
		"mkdir": func(w *walker, c *syntax.CmdCall) {
			if !hasShortFlag(c, 'p') && !hasFlag(c, "parents") {
				w.pathArgs(c, host.FSRead, Reversible)
				for _, a := range positional(c) {
					w.argParent(a)
				}
			}
			w.pathArgs(c, host.FSWrite, Irreversible)
		},
		"touch": func(w *walker, c *syntax.CmdCall) {
			w.pathArgs(c, host.FSRead, Reversible)
			w.pathArgs(c, host.FSWrite, Irreversible)
		},
		// rm checks every target before removing any; without --permanent
		// it moves them into the trash, which it writes.
		"rm": func(w *walker, c *syntax.CmdCall) {
			w.pathArgs(c, host.FSRead, Reversible)
			if hasFlag(c, "permanent") {
				w.pathArgs(c, host.FSDelete, Irreversible)
				return
			}
			w.pathArgs(c, host.FSDelete, Conditional)
			w.trash()
		},
		"cp": func(w *walker, c *syntax.CmdCall) { w.transfer(c, host.FSRead, Conditional, true) },
		"mv": func(w *walker, c *syntax.CmdCall) { w.transfer(c, host.FSDelete, Conditional, true) },
		"ln": func(w *walker, c *syntax.CmdCall) { w.transfer(c, host.FSRead, Irreversible, false) },
		"cd": func(w *walker, c *syntax.CmdCall) { w.cd(c, false) },
		"pushd": func(w *walker, c *syntax.CmdCall) {
			if len(positional(c)) == 0 {
				w.dirOK = false
				w.note("pushd without a directory swaps to a directory not known here")
				return
			}
			w.stack = append(w.stack, dirState{w.dir, w.dirOK})
			w.cd(c, true)
		},
		"popd": func(w *walker, _ *syntax.CmdCall) {
			if n := len(w.stack); n > 0 {
				w.prev = dirState{w.dir, w.dirOK}
				w.dir, w.dirOK = w.stack[n-1].dir, w.stack[n-1].ok
				w.stack = w.stack[:n-1]
				return
			}
			w.dirOK = false
			w.note("popd returns to a directory pushed before this program")
		},
		"jump": jump, "j": jump,
		"which": func(w *walker, _ *syntax.CmdCall) { w.add(Effect{Kind: host.EnvRead, Name: "PATH"}, Reversible) },
		"env":   func(w *walker, _ *syntax.CmdCall) { w.add(Effect{Kind: host.EnvRead, Name: "*"}, Reversible) },
		"source": func(w *walker, c *syntax.CmdCall) {
			w.pathArgs(c, host.FSRead, Reversible)
			w.opaque("source", "source runs another file, which is not analysed")
		},
		"run": func(w *walker, c *syntax.CmdCall) {
			args := c.Args
			if len(args) == 0 {
				return
			}
			if _, ok := staticWord(args[0]); !ok || (args[0].Kind != syntax.ArgWord && args[0].Kind != syntax.ArgPath) {
				w.add(Effect{Kind: host.ProcSpawn, Name: "run", Dynamic: true}, Irreversible)
				w.note("run of a target computed at run time")
				return
			}
			w.cmd(&syntax.CmdCall{Head: args[0], Args: args[1:]})
		},
		"interact": func(w *walker, c *syntax.CmdCall) {
			args := c.Args
			if len(args) == 0 || args[0].Kind != syntax.ArgWord && args[0].Kind != syntax.ArgPath {
				w.add(Effect{Kind: host.ProcSpawn, Name: "interact", Dynamic: true}, Irreversible)
				return
			}
			w.external(&syntax.CmdCall{Head: args[0], Args: args[1:]}, args[0].Text)
		},
		"undo":  opaqueBuiltin("undo reverses earlier effects recorded in the journal"),
		"apply": opaqueBuiltin("apply runs a stored plan"),
		"reef":  opaqueBuiltin("reef manages and runs tools"),
		"now":   func(w *walker, _ *syntax.CmdCall) { w.add(Effect{Kind: host.Clock}, Reversible) },
		"today": func(w *walker, _ *syntax.CmdCall) { w.add(Effect{Kind: host.Clock}, Reversible) },
		"echo":  none, "pwd": none, "dirs": none, "exit": none, "quit": none, "sleep": none,
		"assert": none, "history": none, "journal": none, "jobs": none, "plan": none, "explain": none,
	}
}

func opaqueBuiltin(note string) builtinFn {
	return func(w *walker, c *syntax.CmdCall) { w.opaque(c.Head.Text, note) }
}

func jump(w *walker, _ *syntax.CmdCall) {
	w.prev = dirState{w.dir, w.dirOK}
	w.dirOK = false
	w.add(Effect{Kind: host.FSRead, Name: "jump", Dynamic: true}, Reversible)
	w.note("jump changes to a directory chosen from history")
}

// cmd records the effects of one command call: its arguments, redirects,
// and what its head resolves to.
func (w *walker) cmd(c *syntax.CmdCall) {
	if c == nil || c.Head == nil {
		return
	}
	for _, e := range c.Env {
		w.cmdArg(e.Value)
	}
	for _, a := range c.Args {
		w.cmdArg(a)
	}
	for _, r := range c.Redirects {
		w.cmdArg(r.Target)
		kind, rev := host.FSWrite, Conditional
		if r.Kind == syntax.RedirIn {
			kind, rev = host.FSRead, Reversible
		}
		w.argPath(r.Target, kind, rev)
	}
	if c.Trailing != nil {
		w.block(c.Trailing)
	}
	name := c.Head.Text
	if c.Head.Kind != syntax.ArgWord || c.Forced {
		w.external(c, name)
		return
	}
	if l, ok := w.lookup(name); ok && (l.fn != nil || l.alias != nil && !w.expanding[name]) {
		if l.fn != nil {
			w.callFn(l.fn)
		} else {
			w.aliasCall(name, l.alias, c)
		}
		return
	}
	if w.env.Function != nil {
		if d, ok := w.env.Function(name); ok {
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
			if t == nil {
				w.opaque(name, "the target of session alias "+name+" is not available")
			} else {
				w.aliasCall(name, t, c)
			}
			return
		}
	}
	if b, ok := builtins[name]; ok {
		b(w, c)
		return
	}
	w.external(c, name)
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
	w.expanding[name] = true
	w.cmd(&merged)
	delete(w.expanding, name)
}
