package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
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
// read the same: valid UTF-8, no escapes, no control characters.
func plainString(s string) (string, string, bool) {
	end := strings.IndexByte(s, '"')
	if end < 0 || !utf8.ValidString(s[:end]) {
		return "", "", false
	}
	for i := 0; i < end; i++ {
		if s[i] == '\\' || s[i] < 0x20 {
			return "", "", false
		}
	}
	return s[:end], s[end+1:], true
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
