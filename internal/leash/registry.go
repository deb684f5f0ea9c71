package leash

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// FlagSpec declares one flag a builtin accepts: its long name (`--long`),
// the short letters that mean the same (`-r`, `-R`), and whether it takes a
// value (`--name=value`). The evaluator rejects flags a builtin does not
// declare; derivation reads flags through the same declaration.
type FlagSpec struct {
	Long  string
	Short string // letters, e.g. "rR"; "" when none
	Value bool
}

// TakesNextWord reports whether the long flag `--long`, written without
// `=value`, takes the command's next word as its value: it is declared with
// Value. Evaluation binds a builtin's words with it and derivation reads
// them with it, so a plan and a run agree on which words are positional.
func TakesNextWord(specs []FlagSpec, long string) bool {
	for _, s := range specs {
		if s.Long == long {
			return s.Value
		}
	}
	return false
}

// ValueWord reports whether a command word of kind k can be the value a
// flag takes from the next word: anything but a flag or `--`.
func ValueWord(k syntax.ArgKind) bool {
	switch k {
	case syntax.ArgLongFlag, syntax.ArgShortFlag, syntax.ArgDashDash:
		return false
	}
	return k != 0
}

// Builtin is what derivation knows of one command or value function name
// of the registry (Env.Registry): a head it does not hold is an external
// program.
type Builtin struct {
	// Command derives the command form `name args…`, also used for the
	// call form `name(args…)` of a command builtin and for a bare name in
	// value position. Nil when the name is not a command builtin.
	Command func(d *Deriver)
	// Call derives the call form `name(args…)` of a value function (path,
	// save, run, ...). Nil when the name is not a value function.
	Call func(d *Deriver)
	// Flags are the flags the command form accepts.
	Flags []FlagSpec
	// Quoted: the command's arguments and trailing block are syntax it
	// describes, not values it evaluates (plan); derivation does not count
	// their effects.
	Quoted bool
}

// Method is what derivation knows of one method of a receiver type (or
// one member of a namespace): what calling it (or reading it as a field)
// does beyond evaluating its receiver and arguments. The Deriver holds the
// receiver (Receiver), the arguments (Args) and whether it was read as a
// field (Field).
type Method struct {
	Effects func(d *Deriver)
}

// Registry is what derivation knows of the names a program can use without
// binding them: builtin commands and value functions, the methods of each
// receiver type, the namespaces and their members. The evaluator's
// registry (eval.Registry) implements it, and evaluation reads the same
// entries, so a plan and a run cannot disagree on what a name is. A nil
// Registry in Env knows no name: every command head is an external
// program.
type Registry interface {
	// Builtin looks up a command or value function name.
	Builtin(name string) (Builtin, bool)
	// Method looks up the method name of a receiver of type typ (a type
	// name as value.TypeName gives it; "" when the type is not known
	// statically).
	Method(typ, name string) (Method, bool)
	// Namespace reports whether name is a namespace (json, os, http, ...).
	Namespace(name string) bool
	// Member looks up the member name of namespace ns.
	Member(ns, name string) (Method, bool)
}

// lookupBuiltin looks name up in the environment's registry.
func (w *walker) lookupBuiltin(name string) (Builtin, bool) {
	if w.env.Registry == nil {
		return Builtin{}, false
	}
	return w.env.Registry.Builtin(name)
}

// isCommand reports a registered command builtin.
func (w *walker) isCommand(name string) bool {
	b, ok := w.lookupBuiltin(name)
	return ok && b.Command != nil
}

// isValueFunc reports a registered value function.
func (w *walker) isValueFunc(name string) bool {
	b, ok := w.lookupBuiltin(name)
	return ok && b.Call != nil
}

// isNamespace reports a registered namespace.
func (w *walker) isNamespace(name string) bool {
	return w.env.Registry != nil && w.env.Registry.Namespace(name)
}

// flagGiven reports whether the flag declared with long name long (or one
// of its short letters) is among c's arguments before any `--`.
func flagGiven(c *syntax.CmdCall, flags []FlagSpec, long string) bool {
	short := ""
	for _, f := range flags {
		if f.Long == long {
			short = f.Short
		}
	}
	for _, a := range c.Args {
		switch a.Kind {
		case syntax.ArgDashDash:
			return false
		case syntax.ArgLongFlag:
			if a.Name == long {
				return true
			}
		case syntax.ArgShortFlag:
			if short != "" && strings.ContainsAny(a.Text, short) {
				return true
			}
		}
	}
	return false
}
