package eval

import (
	"sort"

	"github.com/shoalgo/shoal/internal/value"
)

// suggest returns the candidate closest to name by edit distance, or ""
// when none is close enough to be a plausible typo.
func suggest(name string, candidates []string) string {
	best, bestD := "", 0
	limit := max(1, min(3, len(name)/3))
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		d := editDistance(name, c)
		if d <= limit && (best == "" || d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance between a and b, counted in bytes.
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// commandNames lists every name a command head could mean in this scope:
// builtins, evaluator functions and visible bindings.
func commandNames(sc *scope) []string {
	names := builtinNames()
	for n := range valueFuncs {
		names = append(names, n)
	}
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
