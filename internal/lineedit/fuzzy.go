package lineedit

import (
	"unicode/utf8"

	"github.com/reeflective/readline"

	"github.com/shoalgo/shoal/internal/complete"
)

// fuzzy offers the candidates that match the typed word only fuzzily
// (completion.fuzzy: its characters in order), when none starts with it.
// The library keeps only candidates that start with the text it
// replaces, so the typed word is first replaced in the line by what the
// fuzzy matches share (often nothing): Tab with fuzzy completion on
// rewrites a word no candidate extends, as fish does, and the menu then
// offers the matches. ok is false when nothing can be offered.
func (e *Editor) fuzzy(src string, pos int, cands []complete.Candidate) (prefix string, vals []readline.Completion, ok bool) {
	if len(cands) == 0 || pos < 0 || pos > len(src) {
		return "", nil, false
	}
	span := cands[0].Replace
	start, end := int(span.Start), int(span.End)
	if start < 0 || start >= pos || end < pos || end > len(src) {
		return "", nil, false // nothing typed of the word: nothing to match fuzzily
	}
	typed := src[start:pos]
	var labels []string
	seen := map[string]bool{}
	for _, c := range cands {
		if c.Replace == span && !seen[c.Label] && ascii(c.Label) {
			seen[c.Label] = true
			labels = append(labels, c.Label)
		}
	}
	if len(labels) == 0 || !ascii(typed) {
		return "", nil, false
	}
	shared := labels[0]
	for _, l := range labels[1:] {
		n := 0
		for n < len(shared) && n < len(l) && shared[n] == l[n] {
			n++
		}
		shared = shared[:n]
	}
	// Replace the typed word (up to the cursor) with what they share.
	line, cur := e.rl.Line(), e.rl.Cursor()
	if string(*line) != src {
		return "", nil, false // a candidate is being shown: leave the line alone
	}
	rs, rp := utf8.RuneCountInString(src[:start]), utf8.RuneCountInString(src[:pos])
	line.Cut(rs, rp)
	cur.Set(rs)
	cur.InsertAt([]rune(shared)...)
	lead := ""
	if shared == "" && start > 0 {
		// The prefix the library replaces must not be empty (it would
		// guess its own): the character before the word, given back by
		// every value.
		_, w := utf8.DecodeLastRuneInString(src[:start])
		lead = src[start-w : start]
		if !ascii(lead) {
			return "", nil, false
		}
	}
	for _, c := range cands {
		if c.Replace != span || !seen[c.Label] {
			continue
		}
		delete(seen, c.Label)
		desc := ""
		if c.Kind == complete.KindVariable {
			desc = c.Detail
		}
		vals = append(vals, readline.Completion{Value: lead + c.Label, Display: c.Label, Description: desc, Tag: tagOf(c.Kind)})
	}
	return lead + shared, vals, true
}
