package eval

// Shell habits at run time: a builtin that shares its name with a
// familiar program (ls, rm, cp, ...) refuses that program's flags, so its
// error says how to reach the program itself.

import (
	"errors"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// programNamed are the builtins a POSIX user knows as programs.
var programNamed = map[string]bool{
	"ls": true, "rm": true, "cp": true, "mv": true, "mkdir": true, "cat": true, "head": true,
	"ln": true, "touch": true, "which": true, "pwd": true, "sleep": true, "env": true, "stat": true,
	"cd": true,
}

// programHint is "; the ls program: run("ls", "-la")" for a builtin named
// like a program, spelling the call's flags as the program would get them.
func programHint(name string, flags []Flag) string {
	if !programNamed[name] || len(flags) == 0 {
		return ""
	}
	args := []string{strconv.Quote(name)}
	shorts := ""
	for _, f := range flags {
		if f.Short {
			shorts += f.Name
			continue
		}
		args = append(args, strconv.Quote("--"+f.Name))
	}
	if shorts != "" {
		args = append(args[:1], append([]string{strconv.Quote("-" + shorts)}, args[1:]...)...)
	}
	return "; the " + name + " program itself: run(" + strings.Join(args, ", ") + ")"
}

// undeclaredAssign is the error of NAME = VALUE for a name never
// declared: the hint says how to declare it, or set the environment.
func (t *thread) undeclaredAssign(name string, sc *scope) *value.Error {
	e := t.undefinedVar(name, sc)
	if e.Hint == "" {
		e.Hint = "declare it first: let " + name + " = VALUE (var for a name you reassign), or env." + name + " = VALUE for the environment"
	}
	return e
}

// shellAssignHint turns the error of FOO=bar (a POSIX assignment: the
// word bar read as an undefined variable) into one that spells it in
// Shoal; any other error is returned as it is.
func shellAssignHint(s *syntax.AssignStmt, sc *scope, err error) error {
	tg, ok := s.Target.(*syntax.Var)
	word := bareWord(s.Value)
	var e *value.Error
	if !ok || word == "" || s.Op != syntax.AssignSet || sc.lookup(tg.Name) != nil || !errors.As(err, &e) || e.Code != codeUndefined {
		return err
	}
	e.Hint = "`" + tg.Name + "=" + word + "` is POSIX shell: write let " + tg.Name + " = " + strconv.Quote(word) +
		", or env." + tg.Name + " = " + strconv.Quote(word) + " for the environment"
	return e
}

// bareWord is the name of a lone variable or a lone command word (bar in
// FOO=bar), else "".
func bareWord(x syntax.Expr) string {
	switch v := x.(type) {
	case *syntax.Var:
		return v.Name
	case *syntax.Cmd:
		if c := v.Call; c != nil && c.Head != nil && c.Head.Kind == syntax.ArgWord && len(c.Args) == 0 && len(c.Env) == 0 && !c.Forced {
			return c.Head.Text
		}
	}
	return ""
}
