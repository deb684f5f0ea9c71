package kernel

import (
	"slices"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/leash"
)

// planKinds is the distinct, sorted effect kinds of a plan's effects: what
// the journal would read back from their JSON (journalEffects), given to
// it with the row (journal.Entry.KindsGiven) so that it does not decode
// that JSON on the start row and again on the finish row. nil for none.
// ok is false, and the journal decodes the JSON, when a kind is not valid
// UTF-8 (its JSON would name another string); leash's kinds are a fixed
// set of words, so that is never so for a derived plan. effs is a derived
// plan's, bounded by the source it came from.
func planKinds(effs []leash.Effect) (kinds []string, ok bool) {
	for _, e := range effs {
		if !utf8.ValidString(string(e.Kind)) {
			return nil, false
		}
	}
	switch len(effs) {
	case 0:
		return nil, true
	case 1:
		if effs[0].Kind == "" {
			return nil, true
		}
		return []string{string(effs[0].Kind)}, true
	}
	kinds = make([]string, 0, len(effs))
	for _, e := range effs {
		if e.Kind != "" {
			kinds = append(kinds, string(e.Kind))
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds), true
}
