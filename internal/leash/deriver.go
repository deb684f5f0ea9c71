package leash

import (
	"net/url"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// Deriver is what a builtin's effect declaration sees: the call being
// derived and the operations that record effects on the plan. A builtin
// declares its effects as a func(*Deriver) in the evaluator's registry.
//
// Command is the call in command form; a call form `name(args…)` of a
// command builtin is presented as a command whose arguments are the
// expressions (named arguments as long flags). Args is set for the call
// form of a value function.
type Deriver struct {
	w     *walker
	name  string
	cmd   *syntax.CmdCall
	args  []*syntax.Arg
	flags []FlagSpec
	// A method's or namespace member's receiver, whether it was read as a
	// field, and the receiver's static type ("" when not known).
	recv  syntax.Expr
	field bool
	typ   string
}

// Name is the builtin being derived.
func (d *Deriver) Name() string { return d.name }

// Command is the command-form call (nil for a value function's call form).
func (d *Deriver) Command() *syntax.CmdCall { return d.cmd }

// Receiver is a method's receiver (the namespace's name for a member).
func (d *Deriver) Receiver() syntax.Expr { return d.recv }

// Field reports a method or member read as a field (`p.size`), with no
// arguments.
func (d *Deriver) Field() bool { return d.field }

// Args are the arguments of a value function's call form, or of a method
// or member call.
func (d *Deriver) Args() []*syntax.Arg { return d.args }

// Positional lists the command's arguments that are not flags (everything
// after `--` is positional).
func (d *Deriver) Positional() []*syntax.CmdArg {
	if d.cmd == nil {
		return nil
	}
	return positional(d.cmd, d.flags)
}

// Flag reports whether the declared flag with long name long was given,
// as `--long` or one of its short letters.
func (d *Deriver) Flag(long string) bool {
	return d.cmd != nil && flagGiven(d.cmd, d.flags, long)
}

// Add records an effect and raises the plan's reversibility to rev.
func (d *Deriver) Add(e Effect, rev string) { d.w.add(e, rev) }

// Note adds a human note to the plan.
func (d *Deriver) Note(n string) { d.w.note(n) }

// Opaque records that this builtin does something derivation cannot bound.
func (d *Deriver) Opaque(note string) { d.w.opaque(d.name, note) }

// Clock records a read of the wall clock.
func (d *Deriver) Clock() { d.w.add(Effect{Kind: host.Clock}, Reversible) }

// PathArgs records kind on every positional argument taken as a path; it
// reports whether there was one.
func (d *Deriver) PathArgs(kind host.Effect, rev string) bool {
	if d.cmd == nil {
		return false
	}
	return d.w.pathArgs(d.cmd, d.flags, kind, rev)
}

// Path records kind on the path(s) one command argument names.
func (d *Deriver) Path(a *syntax.CmdArg, kind host.Effect, rev string) { d.w.argPath(a, kind, rev) }

// PathText records kind on a path written as text (relative to the
// working directory as derivation knows it).
func (d *Deriver) PathText(text string, kind host.Effect, rev string) { d.w.fsEffect(kind, text, rev) }

// ExprPath records kind on the path an expression evaluates to, or a
// dynamic effect when it is not statically known.
func (d *Deriver) ExprPath(x syntax.Expr, kind host.Effect, rev string) {
	if p, ok := d.w.staticPath(x); ok {
		d.w.add(Effect{Kind: kind, Path: p}, rev)
		return
	}
	d.w.dynamicFS(kind, d.name, rev)
}

// Watched records the fs_read of a live source on its first argument: a
// path, a glob's pattern, or a dynamic read.
func (d *Deriver) Watched() {
	if len(d.args) == 0 {
		return
	}
	x := d.args[0].Value
	if p, ok := d.w.staticPath(x); ok {
		d.w.add(Effect{Kind: host.FSRead, Path: p}, Reversible)
	} else if d.w.kindOf(x) == "glob" {
		d.w.globRead(x, d.name)
	} else {
		d.w.dynamicFS(host.FSRead, d.name, Reversible)
	}
}

// Parent records fs_read of the directory above the path an argument names.
func (d *Deriver) Parent(a *syntax.CmdArg) { d.w.argParent(a) }

// Transfer handles cp/mv/ln shapes: every source gets srcKind (after
// fs_read when srcKind is not a read), the destination gets fs_write, after
// fs_read when checkDest.
func (d *Deriver) Transfer(srcKind host.Effect, rev string, checkDest bool) {
	if d.cmd != nil {
		d.w.transfer(d.cmd, d.flags, srcKind, rev, checkDest)
	}
}

// Symlink handles `ln -s TARGET LINK`: fs_read of the target as the
// kernel will resolve it, relative to the directory that holds the link
// (not the working directory), then fs_write of the link.
func (d *Deriver) Symlink(rev string) {
	if d.cmd != nil {
		d.w.symlink(d.cmd, d.flags, rev)
	}
}

// Trash records the fs_write of rm's trash directory.
func (d *Deriver) Trash() { d.w.trash() }

// Cd follows a directory change to the first positional argument (none:
// home; `-`: the previous directory).
func (d *Deriver) Cd() {
	if d.cmd != nil {
		d.w.cd(d.cmd, false)
	}
}

// Pushd follows `pushd DIR` (or, without a directory, a swap to a directory
// not known here).
func (d *Deriver) Pushd() {
	w := d.w
	if len(d.Positional()) == 0 {
		if n := len(w.stack); n > 0 {
			// A swap with the directory pushed last, which it checks.
			top := w.stack[n-1]
			w.dirRead(top, "pushd")
			w.stack[n-1] = dirState{w.dir, w.dirOK}
			w.prev = dirState{w.dir, w.dirOK}
			w.dir, w.dirOK = top.dir, top.ok
			return
		}
		w.dynamicFS(host.FSRead, "pushd", Reversible)
		w.dirOK = false
		w.note("pushd without a directory swaps to a directory not known here")
		return
	}
	w.stack = append(w.stack, dirState{w.dir, w.dirOK})
	w.cd(d.cmd, true)
}

// Popd follows `popd`.
func (d *Deriver) Popd() {
	w := d.w
	if n := len(w.stack); n > 0 {
		// popd checks the directory it returns to.
		w.dirRead(w.stack[n-1], "popd")
		w.prev = dirState{w.dir, w.dirOK}
		w.dir, w.dirOK = w.stack[n-1].dir, w.stack[n-1].ok
		w.stack = w.stack[:n-1]
		return
	}
	w.dynamicFS(host.FSRead, "popd", Reversible)
	w.dirOK = false
	w.note("popd returns to a directory pushed before this program")
}

// SpawnWords derives `args[0] args[1:]` as an external program, whatever
// the name (interact).
func (d *Deriver) SpawnWords(args []*syntax.CmdArg) {
	if len(args) == 0 || args[0].Kind != syntax.ArgWord && args[0].Kind != syntax.ArgPath {
		d.w.add(Effect{Kind: host.ProcSpawn, Name: d.name, Dynamic: true}, Irreversible)
		return
	}
	d.w.external(&syntax.CmdCall{Head: args[0], Args: args[1:]}, args[0].Text)
}

// External derives the spawn of program name with args, as the gate sees
// an external command: the PATH lookup for a bare name (the file's fs_read
// for a path), then proc_spawn.
func (d *Deriver) External(name string, args []*syntax.CmdArg) {
	d.w.external(&syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: name}, Args: args}, name)
}

// Word is the text a command argument passes when it is known without
// running anything (a word, a path, a literal string).
func (d *Deriver) Word(a *syntax.CmdArg) (string, bool) {
	if a == nil {
		return "", false
	}
	switch a.Kind {
	case syntax.ArgWord, syntax.ArgPath, syntax.ArgStr:
		return staticWord(a)
	}
	return "", false
}

// ExprText is the text an expression evaluates to when it is a string
// literal or path("literal").
func (d *Deriver) ExprText(x syntax.Expr) (string, bool) {
	switch x := x.(type) {
	case *syntax.StrLit:
		return x.Value, true
	case *syntax.Call:
		if v, ok := x.Fn.(*syntax.Var); ok && v.Name == "path" && d.w.free("path") && len(x.Args) == 1 {
			if s, ok := x.Args[0].Value.(*syntax.StrLit); ok {
				return s.Value, true
			}
		}
	}
	return "", false
}

// ArgWords presents call arguments as command words: literal strings as
// words, anything else as a word known only at run time.
func (d *Deriver) ArgWords(args []*syntax.Arg) []*syntax.CmdArg {
	out := make([]*syntax.CmdArg, 0, len(args))
	for _, a := range args {
		if s, ok := a.Value.(*syntax.StrLit); ok {
			out = append(out, &syntax.CmdArg{Kind: syntax.ArgWord, Text: s.Value})
		} else {
			out = append(out, &syntax.CmdArg{Kind: syntax.ArgExpr, X: a.Value})
		}
	}
	return out
}

// Resolve makes a path text absolute as derivation knows the working
// directory; ok is false when it is not statically known.
func (d *Deriver) Resolve(text string) (string, bool) { return d.w.resolve(text) }

// DynamicSpawn records the spawn of a program known only at run time.
func (d *Deriver) DynamicSpawn(note string) {
	d.w.add(Effect{Kind: host.ProcSpawn, Name: d.name, Dynamic: true}, Irreversible)
	d.w.note(note)
}

// ReceiverRead records the fs_read of a path method's receiver: the path
// when it is statically known, else a dynamic read. A receiver whose type
// is not known statically counts only when called, not read as a field.
func (d *Deriver) ReceiverRead() {
	switch d.typ {
	case "path":
		if p, ok := d.w.staticPath(d.recv); ok {
			d.w.add(Effect{Kind: host.FSRead, Path: p}, Reversible)
		} else {
			d.w.dynamicFS(host.FSRead, d.name, Reversible)
		}
	case "":
		if !d.field {
			d.w.dynamicFS(host.FSRead, d.name, Reversible)
		}
	}
}

// ReceiverReadTyped is ReceiverRead for a receiver statically known to be
// a path only: on a receiver of unknown type it records nothing.
func (d *Deriver) ReceiverReadTyped() {
	if d.typ == "path" {
		d.ReceiverRead()
	}
}

// ReceiverGlob records the fs_read of expanding a glob receiver.
func (d *Deriver) ReceiverGlob() { d.w.globRead(d.recv, d.name) }

// SysRead records the sys_read of the system fact named fact.
func (d *Deriver) SysRead(fact string) {
	d.w.add(Effect{Kind: host.SysRead, Name: fact}, Reversible)
}

// firstPositional is the first argument of a method or member call when
// it is positional.
func (d *Deriver) firstPositional() syntax.Expr {
	if len(d.args) > 0 && d.args[0].Name == "" {
		return d.args[0].Value
	}
	return nil
}

// Connect records the net_connect of a call whose first argument is a URL:
// the URL's host:port when it is a literal, else a dynamic net_connect;
// rev is what the request may do at the server.
func (d *Deriver) Connect(rev string) {
	if lit, ok := d.firstPositional().(*syntax.StrLit); ok {
		if u, err := url.Parse(lit.Value); err == nil {
			if t, err := host.ConnectTarget(u); err == nil {
				d.w.add(Effect{Kind: host.NetConnect, Name: t}, rev)
				return
			}
		}
	}
	d.w.add(Effect{Kind: host.NetConnect, Name: d.name, Dynamic: true}, rev)
	d.w.note("net_connect of a URL computed at run time (" + d.name + ")")
}

// SecretUse records the secret_use of a call whose first argument names
// the secret: the name when it is a literal, else a dynamic secret_use.
func (d *Deriver) SecretUse() {
	if lit, ok := d.firstPositional().(*syntax.StrLit); ok {
		d.w.add(Effect{Kind: host.SecretUse, Name: lit.Value}, Reversible)
		return
	}
	d.w.add(Effect{Kind: host.SecretUse, Name: d.name, Dynamic: true}, Reversible)
	d.w.note("secret_use of a name computed at run time (" + d.name + ")")
}
