package complete

import (
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// scored is a candidate with its match key and relevance (lower is
// better).
type scored struct {
	Candidate
	key   string
	score int
}

// add offers label when it matches the typed prefix.
func (c *completer) add(label, kind, detail string, span syntax.Span, prefix string) {
	c.addKeyed(label, label, kind, detail, span, prefix)
}

// addKeyed offers label, matching prefix against key: an exact-case prefix
// ranks first, then a case-insensitive prefix, then a subsequence.
func (c *completer) addKeyed(label, key, kind, detail string, span syntax.Span, prefix string) {
	score := match(key, prefix)
	if score < 0 || !c.ctx.admits(score, key, prefix) {
		return
	}
	c.out = append(c.out, scored{Candidate{Label: label, Kind: kind, Detail: detail, Replace: span}, key, score})
}

func match(key, prefix string) int {
	switch {
	case strings.HasPrefix(key, prefix):
		return 0
	case len(key) >= len(prefix) && strings.EqualFold(key[:len(prefix)], prefix):
		return 1
	case subsequence(strings.ToLower(key), strings.ToLower(prefix)):
		return 2 + min(skipped(strings.ToLower(key), strings.ToLower(prefix)), maxSkipRank)
	}
	return -1
}

// maxSkipRank bounds how far a loose subsequence match sinks.
const maxSkipRank = 1000

// skipped counts the characters of s passed over before the last
// character of sub is found in it (sub a subsequence of s): the tighter
// a fuzzy match, the better it ranks.
func skipped(s, sub string) int {
	n := 0
	for i := 0; i < len(s) && len(sub) > 0; i++ {
		if s[i] == sub[0] {
			sub = sub[1:]
		} else {
			n++
		}
	}
	return n
}

// admits says whether the context's Match lets a candidate of this score
// (match's tiers) through.
func (c *Context) admits(score int, key, prefix string) bool {
	m := c.Match
	switch {
	case m == nil || score == 0:
		return true
	case score == 1:
		return m.CaseInsensitive || (m.Fuzzy && subsequence(key, prefix))
	case score < 2:
		return false
	}
	if !m.Fuzzy {
		return false
	}
	return m.CaseInsensitive || subsequence(key, prefix) // case kept: the exact characters in order
}

func subsequence(s, sub string) bool {
	for i := 0; i < len(s) && len(sub) > 0; i++ {
		if s[i] == sub[0] {
			sub = sub[1:]
		}
	}
	return sub == ""
}

// result sorts by relevance then match key, drops repeated labels (the first
// source to offer a label wins: variables shadow commands, commands shadow
// builtins), and bounds the list.
func (c *completer) result() []Candidate {
	sort.SliceStable(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if a.score != b.score {
			return a.score < b.score
		}
		return a.key < b.key
	})
	seen := make(map[string]bool, len(c.out))
	limit := MaxCandidates
	if m := c.ctx.Match; m != nil && m.MaxResults > 0 {
		limit = min(limit, m.MaxResults)
	}
	out := make([]Candidate, 0, min(len(c.out), limit))
	for _, s := range c.out {
		if seen[s.Label] {
			continue
		}
		seen[s.Label] = true
		out = append(out, s.Candidate)
		if len(out) == limit {
			break
		}
	}
	return out
}
