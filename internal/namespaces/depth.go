package namespaces

import (
	"errors"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// The third-party decoders recurse as they build a document: the TOML
// parser once per nested array or inline table (and its decoder once per
// nested table, dotted keys included), the YAML composer once per nested
// node, though its scanner stops at 10000 levels. Neither has a bound of
// our choosing, and a Go stack overflow cannot be recovered, so a TOML
// text is measured first, by one iterative pass (tomlNesting), and refused
// with too_deep when it could nest past maxDepth; YAML's own limit keeps
// its composer's recursion shallow, and its "exceeded max depth" becomes
// too_deep too. What the decoders return is then walked with maxDepth.

// tooDeep is the too_deep error of a document in format.
func tooDeep(fn, format string) error {
	e := value.TooDeep("the " + format + " document")
	e.Msg = fn + ": " + e.Msg
	return e
}

// tomlNesting returns an upper bound on how deeply the document text
// decodes: two levels for each part of the current [table] header's key
// (a part may be an array of tables), plus, for each open array or inline
// table, one level and the parts of the key it is the value of, plus the
// parts of the key being read. FuzzTOMLNesting checks it against the
// decoder. Strings and comments
// are skipped. It reads text once and keeps a stack only of open brackets.
func tomlNesting(text string) int {
	depth, _ := tomlScan(text)
	return depth
}

// tomlKeyWork bounds the work the TOML decoder may spend on key paths:
// it makes every table implied by a dotted key or header anew, so a key
// of k parts costs it about k² (4000 keys of 250 parts took 32 s). A
// document may cost tomlKeyWork units per byte of text (ordinary keys
// cost one unit each), and at least tomlKeyWorkFloor; past that it fails
// with too_large before decoding.
const (
	tomlKeyWork      = 1
	tomlKeyWorkFloor = 1 << 20
)

// tomlScan returns tomlNesting's bound and the key-path work estimate: for
// every key and header, the square of its number of parts.
func tomlScan(text string) (deepest, work int) {
	var (
		open    []int  // the depth each open bracket added
		depth   int    // the sum of open
		table   int    // levels the last header's key may nest
		dots    int    // dots since the last separator
		keyPart int    // parts of the key whose value is being read
		header  int    // brackets a [header] or [[header]] opened; 0: not in one
		bol     = true // only blanks since the start of the line
	)
	cost := func(levels int) { work = min(work+levels*levels, 1<<62) }
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			dots, keyPart, bol = 0, 0, true
			continue
		case '#':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return deepest, work
			}
			i += j - 1
			continue
		case '"', '\'':
			i = skipTOMLString(text, i) - 1
		case '.':
			dots++
		case '=':
			keyPart, dots = dots+1, 0
			cost(keyPart)
		case ',':
			keyPart, dots = 0, 0
		case '[', '{':
			if c == '[' && (bol && len(open) == 0 || header > 0 && len(open) == header) {
				header++ // [[ opens an array of tables: one level more
			}
			add := 1 + keyPart
			open = append(open, add)
			depth += add
			keyPart, dots = 0, 0
		case ']', '}':
			if header > 0 && len(open) == header {
				// The header's key ends. Any part of it may name an
				// array of tables, which nests its tables a level deeper.
				table = 2 * (dots + 1)
				cost(dots + 1)
			}
			if n := len(open); n > 0 {
				depth -= open[n-1]
				open = open[:n-1]
			}
			if len(open) == 0 {
				header = 0
			}
			keyPart, dots = 0, 0
		}
		bol = false
		deepest = max(deepest, table+depth+keyPart+dots)
	}
	return deepest, work
}

// skipTOMLString returns the offset just past the string opening at i:
// basic ("..." with escapes) or literal ('...'), single- or multi-line.
// An unterminated string ends at the end of its line (single-line) or of
// the text (multi-line); the decoder reports it.
func skipTOMLString(text string, i int) int {
	q := text[i]
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(text[i:], triple) {
		for j := i + 3; j < len(text); j++ {
			switch {
			case q == '"' && text[j] == '\\':
				j++
			case strings.HasPrefix(text[j:], triple):
				return j + 3
			}
		}
		return len(text)
	}
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(text)
}

// passBounds returns err unchanged when it is a language error with a
// bound's code (too_deep, too_large), so parse functions do not turn it
// into an arg_error.
func passBounds(err error) (error, bool) {
	var ve *value.Error
	if errors.As(err, &ve) && (ve.Code == value.CodeTooDeep || ve.Code == value.CodeTooLarge) {
		return ve, true
	}
	return err, false
}
