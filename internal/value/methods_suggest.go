package value

import (
	"sort"
	"strings"
)

// Diagnostics for method calls that do not resolve.

// mTeach maps names people reach for from other languages to the Shoal
// spelling. Each entry is the hint shown for that name.
var mTeach = map[string]string{
	"length":    "did you mean .len()?",
	"size":      "did you mean .len()?",
	"read_str":  "did you mean .read()?",
	"push":      "lists are immutable; build a new one with `list + [item]`",
	"substring": "slice by characters with .take(n) and .skip(n)",
	"substr":    "slice by characters with .take(n) and .skip(n)",
	"slice":     "slice with .take(n) and .skip(n)",
	"to_upper":  "did you mean .upper()?",
	"to_lower":  "did you mean .lower()?",
	"strip":     "did you mean .trim()?",
	"to_string": `convert with .str() or interpolate: "{x}"`,
	"to_str":    `convert with .str() or interpolate: "{x}"`,
	"includes":  "did you mean .contains()?",
	"has":       "did you mean .contains()?",
	"for_each":  "did you mean .each()?",
	"foreach":   "did you mean .each()?",
	"unique":    "did you mean .uniq()?",
	"distinct":  "did you mean .uniq()?",
}

// UnknownMethod builds the error for calling method name on recv when no
// method of that name exists for recv's kind. A name that is a method of
// some other kind is a type_error (`5.len()`, `(0s).abs()`); anything else
// is field_missing with a did-you-mean hint when one is close.
func UnknownMethod(recv Value, name string) *Error {
	k := KNull
	if recv != nil {
		k = recv.Kind()
	}
	tn := TypeName(recv)
	if hint, ok := mTeach[name]; ok {
		return Errorf(CodeField, "unknown method `.%s` on %s", name, tn).WithHint(hint)
	}
	if owners := mOwners(name); len(owners) > 0 {
		e := mTypeErr("`.%s` is not a method of %s", name, tn)
		switch name {
		case "str", "display":
			return e.WithHint(`interpolate it instead: "{x}"`)
		}
		return e.WithHint("`." + name + "` works on " + strings.Join(owners, ", "))
	}
	e := Errorf(CodeField, "unknown method `.%s` on %s", name, tn)
	if s := Suggest(name, MethodNames(k)); s != "" {
		e.WithHint("did you mean ." + s + "()?")
	}
	return e
}

// mOwners lists the kinds that have a method called name.
func mOwners(name string) []string {
	var out []string
	for k := range numKinds {
		if _, ok := LookupMethod(k, name); ok {
			out = append(out, k.String())
		}
	}
	sort.Strings(out)
	return out
}

// Suggest returns the candidate closest to name by edit distance, or ""
// when none is close enough to be a plausible typo (at most a third of the
// name's length, between 1 and 3 edits). Ties go to the alphabetically first
// candidate, so suggestions are stable. It serves method names here and
// command names in the evaluator.
func Suggest(name string, candidates []string) string {
	best, bestD := "", 0
	limit := max(1, min(3, len(name)/3))
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		d := EditDistance(name, c)
		if d <= limit && (best == "" || d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the optimal-string-alignment distance between a and b
// (Levenshtein plus adjacent transpositions), counted in bytes.
func EditDistance(a, b string) int {
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
