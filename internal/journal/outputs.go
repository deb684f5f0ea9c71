package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/proto"
)

// decodeOutputs reads an outputs_json column. The journal writes one exact
// shape, [{"kind":K,"hash":H,"len":N},...] with no spaces and no escapes in
// K and H; that shape is read by hand (encoding/json was half the cost of a
// Query), anything else by encoding/json.
// The kinds and hashes returned are substrings of s.
func decodeOutputs(s string) ([]Output, error) {
	if outs, ok := fastOutputs(s); ok {
		return outs, nil
	}
	outs := []Output{}
	if err := json.Unmarshal([]byte(s), &outs); err != nil {
		return nil, err
	}
	return outs, nil
}

// decodeOutputsTo is decodeOutputs, appending outputs of the journal's
// own shape to *arena, a page's one backing array for its rows' outputs,
// and returning them clipped (an append to them copies, never reaching
// the next row's).
func decodeOutputsTo(arena *[]Output, s string) ([]Output, error) {
	start := len(*arena)
	if more, ok := appendFastOutputs(*arena, s); ok {
		*arena = more
		if len(more) == start {
			return []Output{}, nil
		}
		return slices.Clip(more[start:]), nil
	}
	return decodeOutputs(s)
}

func fastOutputs(s string) ([]Output, bool) {
	if s == "[]" {
		return []Output{}, true
	}
	return appendFastOutputs(make([]Output, 0, strings.Count(s, "},")+1), s)
}

// appendFastOutputs appends the outputs of s, in the journal's shape, to
// outs; ok is false (and outs to be dropped) for any other text.
func appendFastOutputs(outs []Output, s string) ([]Output, bool) {
	if s == "[]" {
		return outs, true
	}
	s, ok := strings.CutPrefix(s, "[")
	if !ok {
		return nil, false
	}
	for {
		var o Output
		if s, ok = strings.CutPrefix(s, `{"kind":"`); !ok {
			return nil, false
		}
		if o.Kind, s, ok = plainString(s); !ok {
			return nil, false
		}
		if s, ok = strings.CutPrefix(s, `,"hash":"`); !ok {
			return nil, false
		}
		if o.Hash, s, ok = plainString(s); !ok {
			return nil, false
		}
		if s, ok = strings.CutPrefix(s, `,"len":`); !ok {
			return nil, false
		}
		end := strings.IndexByte(s, '}')
		if end < 0 || !plainInt(s[:end]) {
			return nil, false
		}
		if o.Len, s, ok = cutInt(s, '}'); !ok {
			return nil, false
		}
		outs = append(outs, o)
		if s == "]" {
			return outs, true
		}
		if s, ok = strings.CutPrefix(s, ","); !ok {
			return nil, false
		}
	}
}

// plainString reads up to the closing quote of a string that JSON would
// read the same: valid UTF-8, no escapes, no control characters. It
// looks at s once, eight bytes at a time while they are plain ASCII (an
// output's hash is 71 of them): a search for the quote, then a UTF-8
// check, then a byte loop over the same text were a tenth of the
// kernel's CPU on a page of journal.query (docs/performance.md).
func plainString(s string) (string, string, bool) {
	i := 0
	for {
		if i = proto.PlainASCIIEnd(s, i); i == len(s) {
			return "", "", false
		}
		switch c := s[i]; {
		case c == '"':
			return s[:i], s[i+1:], true
		case c < utf8.RuneSelf: // a backslash or a control byte
			return "", "", false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return "", "", false
		}
		i += n
	}
}

// plainInt reports whether s is a JSON integer: an optional minus, then
// "0" or digits not starting with 0.
func plainInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
