package journal

import (
	"math"
	"strings"
)

// A row's outputs are stored as the JSON text the journal writes,
// [{"kind":K,"hash":H,"len":N},...], which is already the shape of an
// entry's outputs in a journal.query answer. Decoding that text into
// Outputs only for the kernel to encode the same bytes again was a sixth
// of the kernel's samples on a page of journal.query (docs/performance.md,
// "journal.query: the fourteenth round"). A Query with Stored passes the
// text through instead, for the rows whose text is exactly what encoding
// their decoded outputs would give back (storedOutputs says which); every
// other row's outputs are decoded as before, and a row whose outputs do
// not decode fails the Query as before. The AST and the effects, which
// the answer carries as they are stored, are left as the row's text too
// rather than copied out of it.

// StoredOutputs returns the entry's outputs as their stored JSON text,
// when a Query with Stored passed it through (Outputs is then nil); ok is
// false otherwise, and Outputs holds them. The text is a JSON array of
// objects {"kind":K,"hash":H,"len":N}, members in that order, no
// whitespace, K and H strings that need no escape, N a canonical integer:
// byte for byte what encoding Outputs in that shape gives.
func (e *Entry) StoredOutputs() (string, bool) {
	return e.outputsText, e.outputsText != ""
}

// StoredAST returns the entry's AST as the text its row stores, when a
// Query with Stored read it ("": none; AST is then nil); ok is false
// otherwise, and AST holds it. The journal checked the text when the row
// was written, not since.
func (e *Entry) StoredAST() (string, bool) { return e.astText, e.stored }

// StoredEffects is StoredAST for the effects.
func (e *Entry) StoredEffects() (string, bool) { return e.effectsText, e.stored }

// storedOutputs reports whether s, a row's outputs text, is in the
// journal's own shape exactly as the wire encodes it, so that it may go
// into an answer as it is: "[]", or "[" and objects separated by ","
// and "]", each {"kind":"K","hash":"H","len":N} with K and H valid UTF-8
// with no quote, backslash or control byte (what proto.AppendString
// writes as itself) and N an integer without sign, leading zeros or
// exponent, or a minus before a nonzero one, within int64. It reads s
// once, allocates nothing and does not recurse (the shape's depth is two);
// its length is counted against the page's MaxPageBytes like the rest of
// the row. Anything else is false: that row's outputs are decoded and
// encoded again, and a text that does not decode fails the query.
func storedOutputs(s string) bool {
	if s == "[]" {
		return true
	}
	s, ok := strings.CutPrefix(s, "[")
	if !ok {
		return false
	}
	for {
		if s, ok = strings.CutPrefix(s, `{"kind":"`); !ok {
			return false
		}
		if _, s, ok = plainString(s); !ok {
			return false
		}
		if s, ok = strings.CutPrefix(s, `,"hash":"`); !ok {
			return false
		}
		if _, s, ok = plainString(s); !ok {
			return false
		}
		if s, ok = strings.CutPrefix(s, `,"len":`); !ok {
			return false
		}
		if s, ok = cutStoredLen(s); !ok {
			return false
		}
		if s == "]" {
			return true
		}
		if s, ok = strings.CutPrefix(s, ","); !ok {
			return false
		}
	}
}

// cutStoredLen reads, in one pass, an output's len as storedOutputs takes
// it and the '}' after it, and returns what follows: an integer without
// sign, leading zero, fraction or exponent, or a minus before a nonzero
// one, within int64.
func cutStoredLen(s string) (string, bool) {
	i, neg := 0, false
	if s != "" && s[0] == '-' {
		i, neg = 1, true
	}
	start := i
	var u uint64
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		u = u*10 + uint64(d)
	}
	n := i - start
	switch {
	case n == 0 || i == len(s) || s[i] != '}':
		return "", false
	case s[start] == '0' && (n > 1 || neg): // a leading zero, or -0
		return "", false
	case n > 19: // no leading zero: past int64's range (and u wrapped)
		return "", false
	case !neg && u > math.MaxInt64, neg && u > 1<<63:
		return "", false
	}
	return s[i+1:], true
}
