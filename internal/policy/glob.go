package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Glob is a compiled absolute path glob. Each "/"-separated segment is a
// path.Match pattern (`*`, `?`, `[...]`, `\` escapes; none of them matches
// "/"), except a segment that is exactly `**`, which matches any number of
// whole segments, zero included: "/a/**" matches "/a", "/a/b" and
// "/a/b/c". Matching is dynamic programming over segments, so its cost is
// bounded by segments(glob) x segments(path) segment matches whatever the
// glob; there is no backtracking across segments.
type Glob struct {
	text string   // the absolute glob as compiled
	segs []string // its segments, "" never (the root glob "/" has none)
}

// String returns the absolute glob text.
func (g Glob) String() string { return g.text }

// errGlob is wrapped by every glob compilation error.
var errGlob = errors.New("bad glob")

// CompileGlob compiles an absolute glob. Use ExpandHome first for `~`.
func CompileGlob(text string) (Glob, error) {
	segs, why := globSegs(text)
	if why != "" {
		return Glob{}, fmt.Errorf("%w %q: %s", errGlob, text, why)
	}
	return Glob{text: "/" + strings.Join(segs, "/"), segs: segs}, nil
}

// globSegs splits an absolute glob into its segments, or says what is
// wrong with it.
func globSegs(text string) ([]string, string) {
	if len(text) > MaxGlobBytes {
		return nil, fmt.Sprintf("longer than %d bytes", MaxGlobBytes)
	}
	if !strings.HasPrefix(text, "/") {
		return nil, "must be absolute (start with / or ~/)"
	}
	if strings.ContainsRune(text, 0) {
		return nil, "contains NUL"
	}
	var segs []string
	for s := range strings.SplitSeq(text[1:], "/") {
		switch s {
		case "", ".":
			continue // "//" and "/./" are the same directory
		case "..":
			return nil, `".." is not allowed in a grant`
		}
		if s != "**" && strings.Contains(s, "**") {
			return nil, "** must be a whole path segment"
		}
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Sprintf("segment %q: %v", s, err)
			}
		}
		// Consecutive ** are one **.
		if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		segs = append(segs, s)
		if len(segs) > MaxGlobSegments {
			return nil, fmt.Sprintf("more than %d segments", MaxGlobSegments)
		}
	}
	return segs, ""
}

// ExpandHome expands a leading `~` or `~/` to home. Other texts are
// returned unchanged; `~user` is an error, and so is `~` without a home.
func ExpandHome(text, home string) (string, error) {
	switch {
	case text == "~" || strings.HasPrefix(text, "~/"):
		if home == "" || !strings.HasPrefix(home, "/") {
			return "", fmt.Errorf("%w %q: ~ needs an absolute home directory", errGlob, text)
		}
		return strings.TrimSuffix(home, "/") + text[1:], nil
	case strings.HasPrefix(text, "~"):
		return "", fmt.Errorf("%w %q: ~user is not supported", errGlob, text)
	}
	return text, nil
}

// Match reports whether the absolute path p matches g. p is taken as
// lexically normalised; callers normalise (a path with ".." never matches).
func (g Glob) Match(p string) bool {
	parts, ok := splitClean(p)
	return ok && matchSegs(g.segs, parts)
}

// splitClean splits an absolute path into segments; false for a relative
// path or one with "..".
func splitClean(p string) ([]string, bool) {
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	var parts []string
	for s := range strings.SplitSeq(p[1:], "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, false
		}
		parts = append(parts, s)
	}
	return parts, true
}

// matchSegs is the segment matcher: cur[j] says whether the glob segments
// seen so far match parts[:j]. Each glob segment costs one pass over parts.
func matchSegs(segs, parts []string) bool {
	n := len(parts)
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	cur[0] = true
	for _, s := range segs {
		clear(next)
		if s == "**" {
			// ** extends any match by zero or more parts.
			on := false
			for j := 0; j <= n; j++ {
				on = on || cur[j]
				next[j] = on
			}
		} else {
			for j := 0; j < n; j++ {
				if cur[j] {
					if ok, _ := path.Match(s, parts[j]); ok {
						next[j+1] = true
					}
				}
			}
		}
		cur, next = next, cur
	}
	return cur[n]
}

// Root is the longest concrete (metacharacter-free) prefix of g, used to
// lower a grant to an OS sandbox root: "/a/b/**" -> "/a/b", "/etc/hosts"
// -> "/etc/hosts", "/**" -> "/", "/*/x" -> "/".
func (g Glob) Root() string {
	var root []string
	for _, s := range g.segs {
		if s == "**" || strings.ContainsAny(s, `*?[\`) {
			break
		}
		root = append(root, s)
	}
	return "/" + strings.Join(root, "/")
}

// Covers reports whether g matches every path at or beneath p. That holds
// exactly when g ends in `**` and matches p (the final ** then absorbs any
// further segments); a glob that ends otherwise ("/a/*", "/a") may miss
// something beneath. It is how a gate judges an op on a whole tree (a
// recursive remove or copy of a directory).
func (g Glob) Covers(p string) bool {
	n := len(g.segs)
	return n > 0 && g.segs[n-1] == "**" && g.Match(p)
}
