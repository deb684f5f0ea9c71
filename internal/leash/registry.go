package leash

import (
	"strings"
	"sync/atomic"

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

// Builtin is what derivation knows of one name the evaluator registers.
// The evaluator's registry is the only source of these (see SetRegistry):
// a head it does not register is an external program.
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

// Registry looks a name up in the evaluator's builtin registry.
type Registry func(name string) (Builtin, bool)

var registry atomic.Pointer[Registry]

// SetRegistry installs the builtin registry derivation consults. The
// evaluator calls it from its package initialisation; leash must not import
// the evaluator, so it is handed the lookup instead. Without a registry
// every command head is an external program.
func SetRegistry(r Registry) { registry.Store(&r) }

func lookupBuiltin(name string) (Builtin, bool) {
	r := registry.Load()
	if r == nil {
		return Builtin{}, false
	}
	return (*r)(name)
}

// isCommand reports a registered command builtin.
func isCommand(name string) bool {
	b, ok := lookupBuiltin(name)
	return ok && b.Command != nil
}

// isValueFunc reports a registered value function.
func isValueFunc(name string) bool {
	b, ok := lookupBuiltin(name)
	return ok && b.Call != nil
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
