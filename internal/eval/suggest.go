package eval

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// suggest returns the closest plausible candidate to name, or "".
func suggest(name string, candidates []string) string { return value.Suggest(name, candidates) }

// commandNames lists every name a bare word in value position could mean
// in this scope: builtins, evaluator functions and visible bindings.
func commandNames(r *Registry, sc *scope) []string {
	names := r.names()
	if sc != nil {
		names = append(names, sc.names()...)
	}
	sort.Strings(names)
	return names
}

// commandHeads lists what the head of a command can name in this scope:
// builtin commands and the bindings a command runs (functions, closures,
// aliases, builtins bound to a name). A value function (`glob`, `assert`)
// is called with parentheses, not as a command, and a binding holding data
// is not a command, so neither is offered for a mistyped head.
func commandHeads(r *Registry, sc *scope) []string {
	names := make([]string, 0, len(r.builtins)+8)
	for n := range r.builtins {
		names = append(names, n)
	}
	for s := sc; s != nil; s = s.parent {
		for _, b := range s.vars {
			switch b.val.(type) {
			case *Closure, *value.Builtin, *CmdRef:
				names = append(names, b.name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// notFound is the error for a command head nothing names, with the
// closest builtin or callable binding as a hint.
func (t *thread) notFound(name string, sc *scope) *value.Error {
	e := errorf(codeNotFound, "command not found: %s", name)
	if s := suggest(name, commandHeads(t.reg(), sc)); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	}
	return e
}

// notFoundOnPath is notFound that also considers the programs on PATH
// (`gti` → `git`), listed through the host only now that a head failed.
// A builtin or binding at the same distance wins over a program.
func (t *thread) notFoundOnPath(name string, sc *scope) *value.Error {
	e := t.notFound(name, sc)
	if e.Hint != "" || strings.ContainsRune(name, '/') {
		return e
	}
	if s := suggest(name, t.pathPrograms(name)); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	}
	return e
}

// pathPrograms lists the names on PATH whose length is within Suggest's
// reach of name: at most maxSuggestPathDirs directories and
// maxSuggestPathNames names, directories skipped; a directory the host
// cannot list (or the gate refuses) is passed over.
func (t *thread) pathPrograms(name string) []string {
	path, _ := t.getenv("PATH")
	reach := max(1, min(3, len(name)/3))
	var out []string
	seen := 0
	dirs := filepath.SplitList(path)
	if len(dirs) > maxSuggestPathDirs {
		dirs = dirs[:maxSuggestPathDirs]
	}
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		ents, err := t.host.ReadDir(t.ctx, dir)
		if err != nil {
			continue
		}
		for _, de := range ents {
			if seen++; seen > maxSuggestPathNames {
				return out
			}
			n := de.Name()
			if de.IsDir() || n == name || abs(len(n)-len(name)) > reach {
				continue
			}
			out = append(out, n)
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (t *thread) undefinedVar(name string, sc *scope) *value.Error {
	e := errorf(codeUndefined, "undefined variable `%s`", name)
	if s := suggest(name, commandNames(t.reg(), sc)); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	}
	return e
}

func unknownMethod(recv value.Value, name string) *value.Error {
	return value.UnknownMethod(recv, name)
}
