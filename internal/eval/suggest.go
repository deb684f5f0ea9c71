package eval

import (
	"sort"

	"github.com/shoalgo/shoal/internal/value"
)

// suggest returns the closest plausible candidate to name, or "".
func suggest(name string, candidates []string) string { return value.Suggest(name, candidates) }

// commandNames lists every name a command head could mean in this scope:
// builtins, evaluator functions and visible bindings.
func commandNames(sc *scope) []string {
	names := registryNames()
	if sc != nil {
		names = append(names, sc.names()...)
	}
	sort.Strings(names)
	return names
}

func notFound(name string, sc *scope) *value.Error {
	e := errorf(codeNotFound, "command not found: %s", name)
	if s := suggest(name, commandNames(sc)); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	}
	return e
}

func undefinedVar(name string, sc *scope) *value.Error {
	e := errorf(codeUndefined, "undefined variable `%s`", name)
	if s := suggest(name, commandNames(sc)); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	}
	return e
}

func unknownMethod(recv value.Value, name string) *value.Error {
	return value.UnknownMethod(recv, name)
}
