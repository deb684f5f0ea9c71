package leash

import "unicode/utf8"

// MaxPlanBytes bounds what one derivation lists: its effects and notes,
// each counted at no less than its JSON encoding. Relative paths are made
// absolute, so a source of short statements run from a deep directory
// could otherwise list hundreds of times its own size (20,000 `touch aN`
// from a 3.8 kB directory: 154 MB of plan and 1.1 GB of kernel memory).
// Past the bound derivation stops listing: the plan becomes opaque, with
// one opaque effect and a note saying so, and its reversibility still
// rises with what goes unlisted. It sits below the journal's bound on a
// stored plan (journal.MaxPlanBytes, 4 MiB) so that every derived plan
// can be stored.
const MaxPlanBytes = 3 << 20

// planFullNote is the note of a plan derivation stopped listing (its
// size is MaxPlanBytes's; TestPlanBoundStopsListing holds them equal).
const planFullNote = "the plan lists more than 3 MiB of effects and notes (leash.MaxPlanBytes); " +
	"the rest are not listed, so the plan is opaque"

// effectOverhead is at least what an effect's JSON object costs beyond
// its strings: its braces, field names, quotes, commas and `"dynamic":true`.
const effectOverhead = 96

// effectBound is at least the length of e's JSON encoding, with a comma.
func effectBound(e Effect) int {
	n := effectOverhead + jsonStringBound(string(e.Kind)) + jsonStringBound(e.Path) +
		jsonStringBound(e.Program) + jsonStringBound(e.Name)
	for _, a := range e.Argv {
		n += jsonStringBound(a) + 1
	}
	return n
}

// jsonStringBound is at least the length of s encoded as a JSON string by
// encoding/json, quotes included: a control byte or one of <, >, & takes
// six bytes (\u00XX), a quote or backslash two, an invalid byte six
// (\ufffd), U+2028 and U+2029 six, any other character its own bytes.
func jsonStringBound(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			case c == '"' || c == '\\':
				n += 2
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// charge counts n more bytes of listed plan, and reports whether they
// fit; the first time they do not, the plan is marked full.
func (w *walker) charge(n int) bool {
	if w.full {
		return false
	}
	if w.size+n <= MaxPlanBytes {
		w.size += n
		return true
	}
	w.full = true
	w.plan.Opaque = true
	if revRank(Unknown) > revRank(w.rev) {
		w.rev = Unknown
	}
	w.plan.Effects = append(w.plan.Effects, Effect{Kind: EffectOpaque, Name: "plan", Dynamic: true})
	w.plan.Notes = append(w.plan.Notes, planFullNote)
	return false
}
