package leash

import (
	"path"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// dynamicArg stands in an Argv for an argument known only at run time.
const dynamicArg = "(…)"

// cmdArg walks the expressions inside one command argument.
func (w *walker) cmdArg(a *syntax.CmdArg) {
	if a == nil {
		return
	}
	if a.X != nil {
		w.expr(a.X)
	}
	if a.Value != nil {
		w.cmdArg(a.Value)
	}
}

// staticWord is the text an argument passes to a program when it is known
// without running anything.
func staticWord(a *syntax.CmdArg) (string, bool) {
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath, syntax.ArgGlob:
		return a.Text, true
	case syntax.ArgStr:
		if s, ok := a.X.(*syntax.StrLit); ok {
			return s.Value, true
		}
	case syntax.ArgShortFlag:
		return "-" + a.Text, true
	case syntax.ArgLongFlag:
		if a.Value == nil {
			return "--" + a.Name, true
		}
		if v, ok := staticWord(a.Value); ok {
			return "--" + a.Name + "=" + v, true
		}
	case syntax.ArgDashDash:
		return "--", true
	case syntax.ArgDash:
		return "-", true
	}
	return "", false
}

// positional lists the arguments that are not flags (everything after a
// `--` is positional). A value flag of specs written `--name word` takes
// that word (TakesNextWord), as evaluation binds it.
func positional(c *syntax.CmdCall, specs []FlagSpec) []*syntax.CmdArg {
	var out []*syntax.CmdArg
	rest, taken := false, false
	for _, a := range c.Args {
		if rest {
			out = append(out, a)
			continue
		}
		if taken {
			taken = false
			if ValueWord(a.Kind) {
				continue
			}
		}
		switch a.Kind {
		case syntax.ArgDashDash:
			rest = true
		case syntax.ArgLongFlag:
			taken = a.Value == nil && TakesNextWord(specs, a.Name)
		case syntax.ArgShortFlag:
		default:
			out = append(out, a)
		}
	}
	return out
}

// argPath records a filesystem effect on the path(s) an argument names.
func (w *walker) argPath(a *syntax.CmdArg, kind host.Effect, rev string) {
	if a == nil {
		return
	}
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath, syntax.ArgGlob:
		w.fsEffect(kind, a.Text, rev)
		return
	case syntax.ArgDash:
		w.fsEffect(kind, "-", rev)
		return
	case syntax.ArgStr, syntax.ArgExpr:
		if p, ok := w.staticPath(a.X); ok {
			w.add(Effect{Kind: kind, Path: p}, rev)
			return
		}
		if l, ok := a.X.(*syntax.List); ok {
			for _, x := range l.Elems {
				if p, ok := w.staticPath(x); ok {
					w.add(Effect{Kind: kind, Path: p}, rev)
				} else {
					w.dynamicFS(kind, "argument", rev)
				}
			}
			return
		}
	}
	w.dynamicFS(kind, "argument", rev)
}

// pathArgs records kind on every positional argument; it reports whether
// there was one.
func (w *walker) pathArgs(c *syntax.CmdCall, specs []FlagSpec, kind host.Effect, rev string) bool {
	ps := positional(c, specs)
	for _, a := range ps {
		w.argPath(a, kind, rev)
	}
	return len(ps) > 0
}

// transfer handles cp/mv/ln: every source gets srcKind (after fs_read,
// when srcKind is not a read), the last argument (the destination) gets
// fs_write, after fs_read when checkDest (cp and mv look at the
// destination first: is it a directory, does it exist).
func (w *walker) transfer(c *syntax.CmdCall, specs []FlagSpec, srcKind host.Effect, rev string, checkDest bool) {
	ps := positional(c, specs)
	if len(ps) < 2 {
		for _, a := range ps {
			w.argPath(a, host.FSRead, Reversible)
		}
		return
	}
	for _, a := range ps[:len(ps)-1] {
		if srcKind != host.FSRead {
			w.argPath(a, host.FSRead, Reversible)
		}
		w.argPath(a, srcKind, rev)
	}
	dest := ps[len(ps)-1]
	if checkDest {
		w.argPath(dest, host.FSRead, Reversible)
	}
	w.argPath(dest, host.FSWrite, rev)
}

// symlink handles `ln -s TARGET LINK`. The target is stored as written
// and the kernel resolves a relative one against the link's directory when
// the link is followed, so that is where the target's fs_read is judged.
// A target or link not known statically is a dynamic read.
func (w *walker) symlink(c *syntax.CmdCall, specs []FlagSpec, rev string) {
	ps := positional(c, specs)
	if len(ps) != 2 {
		w.transfer(c, specs, host.FSRead, rev, false)
		return
	}
	target, link := ps[0], ps[1]
	text, ok := w.symlinkText(target)
	switch {
	case ok && path.IsAbs(text):
		w.add(Effect{Kind: host.FSRead, Path: path.Clean(text)}, rev)
	case ok:
		if l, lok := w.argStatic(link); lok {
			w.add(Effect{Kind: host.FSRead, Path: path.Join(path.Dir(l), text)}, rev)
		} else {
			w.dynamicFS(host.FSRead, "symlink target", rev)
		}
	default:
		w.dynamicFS(host.FSRead, "symlink target", rev)
	}
	w.argPath(link, host.FSWrite, rev)
}

// symlinkText is the text a symlink target argument stores, when it is
// known without running anything: a word or literal string as written
// (no "~" expansion: ln stores the text), or path("literal").
func (w *walker) symlinkText(a *syntax.CmdArg) (string, bool) {
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath, syntax.ArgGlob:
		return a.Text, a.Text != ""
	case syntax.ArgStr, syntax.ArgExpr:
		switch x := a.X.(type) {
		case *syntax.StrLit:
			return x.Value, x.Value != ""
		case *syntax.Call:
			if v, ok := x.Fn.(*syntax.Var); ok && v.Name == "path" && w.free("path") && len(x.Args) == 1 {
				if s, ok := x.Args[0].Value.(*syntax.StrLit); ok {
					return s.Value, s.Value != ""
				}
			}
		}
	}
	return "", false
}

// argStatic is the absolute path a command argument names, when known.
func (w *walker) argStatic(a *syntax.CmdArg) (string, bool) {
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath:
		return w.resolve(a.Text)
	case syntax.ArgStr, syntax.ArgExpr:
		return w.staticPath(a.X)
	}
	return "", false
}

// argParent records fs_read of the directory above the path an argument
// names (mkdir checks that it exists), or nothing when the path is not
// static: the fs_write on the path itself already marks the plan dynamic.
func (w *walker) argParent(a *syntax.CmdArg) {
	var p string
	var ok bool
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath:
		p, ok = w.resolve(a.Text)
	case syntax.ArgStr, syntax.ArgExpr:
		p, ok = w.staticPath(a.X)
	}
	if ok {
		w.add(Effect{Kind: host.FSRead, Path: path.Dir(p)}, Reversible)
	}
}

// trash records the fs_write of rm's trash: the directory Env.Trash names
// (rm writes a per-process directory inside it), or an effect named
// "trash" when the session did not say where that is.
func (w *walker) trash() {
	if w.env.Trash != "" {
		w.add(Effect{Kind: host.FSWrite, Path: path.Clean(w.env.Trash)}, Conditional)
		return
	}
	w.add(Effect{Kind: host.FSWrite, Name: "trash"}, Conditional)
}

// cd follows a directory change: a static target becomes the directory
// later relative paths resolve against.
func (w *walker) cd(c *syntax.CmdCall, pushd bool) {
	ps := positional(c, nil)
	prev := dirState{w.dir, w.dirOK}
	switch {
	case len(ps) == 0 && !pushd:
		// cd alone goes home, which it checks.
		home := dirState{w.env.Home, w.env.Home != ""}
		w.dirRead(home, "cd")
		w.dir, w.dirOK = home.dir, home.ok
	case len(ps) == 1 && ps[0].Kind == syntax.ArgDash && !pushd:
		// cd - checks the directory it returns to.
		w.dirRead(w.prev, "cd -")
		w.dir, w.dirOK = w.prev.dir, w.prev.ok
	default:
		target := ps[0]
		w.argPath(target, host.FSRead, Reversible)
		p, ok := "", false
		switch target.Kind {
		case syntax.ArgWord, syntax.ArgPath:
			p, ok = w.resolve(target.Text)
		case syntax.ArgStr, syntax.ArgExpr:
			p, ok = w.staticPath(target.X)
		}
		w.dir, w.dirOK = p, ok
		if !ok {
			w.note("the working directory becomes one computed at run time")
		}
	}
	w.prev = prev
}

// dirRead records the fs_read of changing into a directory derivation
// tracked: its path, or a dynamic read when it is not known.
func (w *walker) dirRead(d dirState, what string) {
	if d.ok && d.dir != "" {
		w.add(Effect{Kind: host.FSRead, Path: d.dir}, Reversible)
		return
	}
	w.dynamicFS(host.FSRead, what, Reversible)
}

// external records the spawn of a program that is not a builtin, a
// function or an alias, and the lookup that finds it (SpawnEffects).
func (w *walker) external(c *syntax.CmdCall, name string) {
	argv := make([]string, 0, len(c.Args)+1)
	argv = append(argv, name)
	for _, a := range c.Args {
		if s, ok := staticWord(a); ok {
			argv = append(argv, s)
		} else {
			argv = append(argv, dynamicArg)
		}
	}
	lookup, spawn := SpawnEffects(name, c.Head.Kind == syntax.ArgPath, argv, w.resolve)
	w.add(lookup, Reversible)
	w.add(spawn, Irreversible)
}

// SpawnEffects are the effects of running the program named name (as
// written: a bare name, or a path when isPath or it has a slash) with
// argv, as every plan states them and policy judges them: the lookup that
// finds it, env_read PATH for a bare name or fs_read of the path
// (resolved by resolve, Dynamic when it cannot be), and the proc_spawn of
// the program as named, a bare name staying a bare name (the host's gate
// judges the path the lookup found when it runs). exec's derivation and
// pty.open both judge spawns through it, so one grant means the same for
// both.
func SpawnEffects(name string, isPath bool, argv []string, resolve func(string) (string, bool)) (lookup, spawn Effect) {
	prog := name
	if isPath || strings.Contains(name, "/") {
		abs, ok := resolve(name)
		if ok {
			prog = abs
		}
		lookup = Effect{Kind: host.FSRead, Path: abs, Dynamic: !ok}
	} else {
		lookup = Effect{Kind: host.EnvRead, Name: "PATH"}
	}
	return lookup, Effect{Kind: host.ProcSpawn, Program: prog, Argv: argv}
}
