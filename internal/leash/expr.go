package leash

import (
	"fmt"
	"path"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

func (w *walker) expr(e syntax.Expr) {
	if e == nil {
		return
	}
	if w.depth >= maxWalkDepth {
		w.opaque("expression", "calls and expressions nest too deeply to analyse")
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	switch e := e.(type) {
	case *syntax.NullLit, *syntax.BoolLit, *syntax.IntLit, *syntax.FloatLit, *syntax.StrLit,
		*syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit, *syntax.DateTimeLit, *syntax.PathLit, *syntax.RegexLit:
	case *syntax.StrInterp, *syntax.Index, *syntax.List, *syntax.Record, *syntax.Binary,
		*syntax.Unary, *syntax.Range:
		// Pure structure: only what is inside can have effects.
		w.children(e)
	case *syntax.Var:
		w.varRef(e.Name)
	case *syntax.Field:
		w.field(e)
	case *syntax.MethodCall:
		w.expr(e.X)
		w.args(e.Args)
		w.trailing(e.Trailing)
		w.method(e.X, e.Name, e.Args, false)
	case *syntax.Call:
		w.args(e.Args)
		w.trailing(e.Trailing)
		w.call(e)
	case *syntax.Block:
		w.block(e)
	case *syntax.Lambda:
		w.lambda(e)
	case *syntax.If:
		w.ifExpr(e)
	case *syntax.Match:
		w.expr(e.Subject)
		for _, a := range e.Arms {
			w.push()
			for _, p := range a.Patterns {
				w.bindPattern(p)
			}
			w.expr(a.Guard)
			w.expr(a.Body)
			w.pop()
		}
	case *syntax.Try:
		w.block(e.Body)
		w.handler(e.Binder, e.Handler)
	case *syntax.Catch:
		w.expr(e.X)
		w.handler(e.Binder, e.Handler)
	case *syntax.With:
		w.with(e)
	case *syntax.Spawn:
		w.block(e.Body)
	case *syntax.LangBlock:
		w.add(Effect{Kind: host.EnvRead, Name: "PATH"}, Reversible)
		w.add(Effect{Kind: host.ProcSpawn, Program: e.Tool, Argv: []string{e.Tool}}, Irreversible)
		w.note("an interpreter block runs " + e.Tool + " on source that is not analysed")
	case *syntax.Cmd:
		w.cmd(e.Call)
	default:
		w.unknown(e)
	}
}

// children walks what is inside a node through the one AST walker: the
// expressions and statements below it (structural pieces such as record
// fields are looked through).
func (w *walker) children(n syntax.Node) {
	kids, ok := syntax.Children(n)
	if !ok {
		w.unknown(n)
		return
	}
	for _, k := range kids {
		switch k := k.(type) {
		case syntax.Expr:
			w.expr(k)
		case syntax.Stmt:
			w.stmt(k)
		case syntax.Pattern:
		default:
			w.children(k)
		}
	}
}

// unknown records a node kind derivation does not understand as opaque
// (never silently skipped), and still counts what is inside it.
func (w *walker) unknown(n syntax.Node) {
	w.opaque(fmt.Sprintf("%T", n), fmt.Sprintf("%T is not analysed", n))
	kids, _ := syntax.Children(n)
	for _, k := range kids {
		switch k := k.(type) {
		case syntax.Expr:
			w.expr(k)
		case syntax.Stmt:
			w.stmt(k)
		}
	}
}

func (w *walker) args(as []*syntax.Arg) {
	for _, a := range as {
		w.expr(a.Value)
	}
}

func (w *walker) trailing(b *syntax.Block) {
	if b != nil {
		w.block(b)
	}
}

func (w *walker) handler(binder string, h syntax.Expr) {
	w.push()
	w.bind(binder, &local{typ: "error"})
	w.expr(h)
	w.pop()
}

// lambda counts a lambda's body where it is written: it may be called any
// number of times from anywhere the value reaches.
func (w *walker) lambda(l *syntax.Lambda) {
	w.push()
	for _, p := range l.Params {
		w.expr(p.Default)
		w.bind(p.Name, &local{})
	}
	saved := dirState{w.dir, w.dirOK}
	w.expr(l.Body)
	w.dir, w.dirOK = saved.dir, saved.ok
	w.pop()
}

func (w *walker) ifExpr(e *syntax.If) {
	w.expr(e.Cond)
	before := dirState{w.dir, w.dirOK}
	w.block(e.Then)
	after := dirState{w.dir, w.dirOK}
	w.dir, w.dirOK = before.dir, before.ok
	w.expr(e.Else)
	if after != (dirState{w.dir, w.dirOK}) {
		w.dirOK = false
		w.note("the working directory depends on a condition")
	}
}

func (w *walker) with(e *syntax.With) {
	saved := dirState{w.dir, w.dirOK}
	for _, en := range e.Entries {
		w.expr(en.Value)
		if en.Key != "cwd" {
			continue
		}
		if p, ok := w.staticPath(en.Value); ok {
			w.dir, w.dirOK = p, true
		} else {
			w.dirOK = false
			w.note("with cwd: a directory computed at run time")
		}
	}
	w.block(e.Body)
	w.dir, w.dirOK = saved.dir, saved.ok
}

// varRef handles a bare name in value position.
func (w *walker) varRef(name string) {
	if !w.free(name) {
		if _, local := w.lookup(name); !local && w.sessionBound(name) && w.env.TypeOf != nil {
			// A session closure taken as a value (an argument to map, on,
			// parallel, retry, a binding) may be called anywhere later, and
			// its body is not known here.
			if t := w.env.TypeOf(name); t == "closure" || t == "" {
				w.opaque(name, "the session closure "+name+" is passed on as a value and may be called")
			}
		}
		return
	}
	switch name {
	case "now", "today":
		w.add(Effect{Kind: host.Clock}, Reversible)
		return
	case "env":
		w.add(Effect{Kind: host.EnvRead, Name: "*"}, Reversible)
		return
	}
	if w.isNamespace(name) || w.isValueFunc(name) {
		return
	}
	if w.isCommand(name) {
		w.cmd(&syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: name}})
		return
	}
	if w.sessionCommand(name) {
		w.cmd(&syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: name}})
	}
}

// sessionCommand reports a session function or alias called name.
func (w *walker) sessionCommand(name string) bool {
	if w.env.Function != nil {
		if _, ok := w.env.Function(name); ok {
			return true
		}
	}
	if w.env.Alias != nil {
		if _, ok := w.env.Alias(name); ok {
			return true
		}
	}
	return false
}

func (w *walker) field(e *syntax.Field) {
	if v, ok := e.X.(*syntax.Var); ok && w.free(v.Name) && v.Name == "env" {
		w.add(Effect{Kind: host.EnvRead, Name: e.Name}, Reversible)
		return
	}
	w.expr(e.X)
	w.method(e.X, e.Name, nil, true)
}

// method records the effects of `recv.name(args)` (or `recv.name` when
// field is set) beyond those of its receiver and arguments: a namespace
// member's or a method's declaration in the registry (`feed`, which joins
// a value and a command, is the language's own).
func (w *walker) method(recv syntax.Expr, name string, args []*syntax.Arg, field bool) {
	reg := w.env.Registry
	if v, ok := recv.(*syntax.Var); ok && w.free(v.Name) && (v.Name == "env" || w.isNamespace(v.Name)) {
		if v.Name == "env" {
			return
		}
		if m, ok := reg.Member(v.Name, name); ok && m.Effects != nil {
			m.Effects(&Deriver{w: w, name: v.Name + "." + name, recv: recv, args: args, field: field})
		}
		return
	}
	if name == "feed" {
		w.feed(recv, args)
		return
	}
	if reg == nil {
		return
	}
	typ := w.kindOf(recv)
	if m, ok := reg.Method(typ, name); ok && m.Effects != nil {
		m.Effects(&Deriver{w: w, name: "." + name, recv: recv, args: args, field: field, typ: typ})
	}
}

// globRead records the fs_read of expanding a glob value: its pattern made
// absolute when the glob is a literal glob("..."), else a dynamic read.
func (w *walker) globRead(recv syntax.Expr, what string) {
	if c, ok := recv.(*syntax.Call); ok && len(c.Args) >= 1 && c.Args[0].Name == "" {
		if s, ok := c.Args[0].Value.(*syntax.StrLit); ok {
			w.fsEffect(host.FSRead, s.Value, Reversible)
			return
		}
	}
	w.dynamicFS(host.FSRead, what, Reversible)
}

// feed handles `value.feed(cmd)` and `cmd.feed(value)`: a side that is a
// command spawns it. Command nodes were already walked; a bare free name is
// a command word; a value of unknown kind may hold a command.
func (w *walker) feed(recv syntax.Expr, args []*syntax.Arg) {
	sides := []syntax.Expr{recv}
	if len(args) > 0 {
		sides = append(sides, args[0].Value)
	}
	for _, x := range sides {
		v, ok := x.(*syntax.Var)
		if !ok {
			continue
		}
		if w.free(v.Name) {
			if !w.isValueFunc(v.Name) && !w.isNamespace(v.Name) && v.Name != "env" {
				if !w.isCommand(v.Name) && !w.sessionCommand(v.Name) {
					w.external(&syntax.CmdCall{Head: &syntax.CmdArg{Kind: syntax.ArgWord, Text: v.Name}}, v.Name)
				}
			}
			continue
		}
		switch w.kindOf(v) {
		case "", "command", "closure":
			w.add(Effect{Kind: host.ProcSpawn, Name: v.Name, Dynamic: true}, Irreversible)
			w.note("feed to " + v.Name + ", which may hold a command")
		}
	}
}

// call records the effects of calling e.Fn with e.Args.
func (w *walker) call(e *syntax.Call) {
	v, ok := e.Fn.(*syntax.Var)
	if !ok {
		w.expr(e.Fn)
		if _, isLambda := e.Fn.(*syntax.Lambda); !isLambda {
			w.opaque("call", "a call of a computed function is not analysed")
		}
		return
	}
	if l, ok := w.lookup(v.Name); ok {
		switch {
		case l.fn != nil:
			w.callFn(l.fn)
		case l.lambda, l.own:
		default:
			w.opaque(v.Name, "a call of "+v.Name+", a value known only at run time")
		}
		return
	}
	if w.sessionBound(v.Name) {
		w.opaque(v.Name, "a call of the session closure "+v.Name)
		return
	}
	if w.env.Function != nil {
		if d, ok := w.env.Function(v.Name); ok {
			if d == nil {
				w.opaque(v.Name, "the body of session function "+v.Name+" is not available")
			} else {
				w.callFn(d)
			}
			return
		}
	}
	if b, ok := w.lookupBuiltin(v.Name); ok {
		switch {
		case b.Call != nil:
			b.Call(&Deriver{w: w, name: v.Name, args: e.Args})
			return
		case b.Command != nil:
			// The arguments were walked already; only the builtin's own
			// effects are left.
			b.Command(&Deriver{w: w, name: v.Name, cmd: callAsCmd(v.Name, e), flags: b.Flags})
			return
		}
	}
	w.opaque(v.Name, "a call of "+v.Name+", which is not known here")
}

// callFn walks the body of a declared function, once per call chain.
func (w *walker) callFn(d *syntax.FnDecl) {
	if w.active[d] {
		return
	}
	if len(w.active) >= maxCallDepth {
		w.opaque(d.Name, "calls nest too deeply to analyse")
		return
	}
	mark(&w.active, d)
	w.push()
	for _, p := range d.Params {
		w.expr(p.Default)
		w.bind(p.Name, &local{typ: typeName(p.Type)})
	}
	if d.Rest != nil {
		w.bind(d.Rest.Name, &local{typ: "list"})
	}
	w.block(d.Body)
	w.pop()
	delete(w.active, d)
}

func typeName(t *syntax.TypeExpr) string {
	if t == nil || t.Optional {
		return ""
	}
	return t.Name
}

// kindOf is the static type name of x, or "" when unknown.
func (w *walker) kindOf(x syntax.Expr) string {
	switch x := x.(type) {
	case *syntax.StrLit, *syntax.StrInterp:
		return "str"
	case *syntax.IntLit:
		return "int"
	case *syntax.FloatLit:
		return "float"
	case *syntax.BoolLit:
		return "bool"
	case *syntax.NullLit:
		return "null"
	case *syntax.SizeLit:
		return "size"
	case *syntax.DurationLit:
		return "duration"
	case *syntax.TimeLit:
		return "time"
	case *syntax.DateTimeLit:
		return "datetime"
	case *syntax.PathLit:
		return "path"
	case *syntax.RegexLit:
		return "regex"
	case *syntax.List:
		return "list"
	case *syntax.Record:
		return "record"
	case *syntax.Lambda:
		return "closure"
	case *syntax.Range:
		return "range"
	case *syntax.Var:
		if l, ok := w.lookup(x.Name); ok {
			return l.typ
		}
		if w.sessionBound(x.Name) && w.env.TypeOf != nil {
			return w.env.TypeOf(x.Name)
		}
	case *syntax.Call:
		if v, ok := x.Fn.(*syntax.Var); ok && w.free(v.Name) {
			switch v.Name {
			case "path":
				return "path"
			case "glob":
				return "glob"
			case "regex":
				return "regex"
			case "now", "today":
				return "datetime"
			}
		}
	case *syntax.MethodCall:
		if (x.Name == "join" || x.Name == "parent") && w.kindOf(x.X) == "path" {
			return "path"
		}
	case *syntax.Field:
		if x.Name == "parent" && w.kindOf(x.X) == "path" {
			return "path"
		}
	}
	return ""
}

// staticPath evaluates a path-valued expression statically: a string
// literal, path("..."), a local bound to one, and .join/.parent on those.
func (w *walker) staticPath(x syntax.Expr) (string, bool) {
	switch x := x.(type) {
	case *syntax.StrLit:
		return w.resolve(x.Value)
	case *syntax.Call:
		if v, ok := x.Fn.(*syntax.Var); ok && v.Name == "path" && w.free("path") && len(x.Args) == 1 {
			if s, ok := x.Args[0].Value.(*syntax.StrLit); ok {
				return w.resolve(s.Value)
			}
		}
	case *syntax.Var:
		if l, ok := w.lookup(x.Name); ok && l.path != "" {
			return l.path, true
		}
	case *syntax.MethodCall:
		if x.Name == "join" && len(x.Args) == 1 {
			base, ok := w.staticPath(x.X)
			s, isStr := x.Args[0].Value.(*syntax.StrLit)
			if ok && isStr && w.kindOf(x.X) == "path" {
				if path.IsAbs(s.Value) {
					return path.Clean(s.Value), true
				}
				return path.Join(base, s.Value), true
			}
		}
	case *syntax.Field:
		if x.Name == "parent" && w.kindOf(x.X) == "path" {
			if base, ok := w.staticPath(x.X); ok {
				return path.Dir(base), true
			}
		}
	}
	return "", false
}
