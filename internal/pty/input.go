package pty

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// InputError is input that Encode refuses: nothing of it is sent.
type InputError struct {
	Item int // the offending item's index in an array; -1 for the whole input
	Msg  string
}

func (e *InputError) Error() string {
	if e.Item < 0 {
		return "input: " + e.Msg
	}
	return fmt.Sprintf("input[%d]: %s", e.Item, e.Msg)
}

// Encode turns the input of a send into the bytes to write to the
// terminal. input is one item or an array of items (not nested); an item
// is a string (typed as is), {"text": string}, {"key": name} (see Key)
// or {"bytes": base64}. appCursor selects the application-mode encoding
// of the arrow, Home and End keys, which a program asks for (DECCKM)
// when it wants them (full-screen editors and pagers do). The result is
// at most MaxInputBytes; an empty input encodes to nothing.
func Encode(input json.RawMessage, appCursor bool) ([]byte, error) {
	input = bytes.TrimSpace(input)
	if len(input) == 0 {
		return nil, &InputError{Item: -1, Msg: "missing"}
	}
	var out []byte
	if input[0] != '[' {
		return encodeItem(out, input, -1, appCursor)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(input, &items); err != nil {
		return nil, &InputError{Item: -1, Msg: "not an array of items: " + err.Error()}
	}
	if len(items) > MaxInputItems {
		return nil, &InputError{Item: -1, Msg: fmt.Sprintf("%d items, at most %d", len(items), MaxInputItems)}
	}
	for i, it := range items {
		var err error
		if out, err = encodeItem(out, bytes.TrimSpace(it), i, appCursor); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// encodeItem appends the bytes of one item to out.
func encodeItem(out []byte, it json.RawMessage, i int, appCursor bool) ([]byte, error) {
	bad := func(format string, a ...any) ([]byte, error) {
		return nil, &InputError{Item: i, Msg: fmt.Sprintf(format, a...)}
	}
	if len(it) == 0 {
		return bad("empty item")
	}
	switch it[0] {
	case '"':
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return bad("bad string: %v", err)
		}
		out = append(out, s...)
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(it, &obj); err != nil {
			return bad("bad object: %v", err)
		}
		if len(obj) != 1 {
			return bad("an object item has exactly one of text, key or bytes")
		}
		for k, v := range obj {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return bad("%s must be a string", k)
			}
			switch k {
			case "text":
				out = append(out, s...)
			case "key":
				seq, ok := Key(s, appCursor)
				if !ok {
					return bad("unknown key %q", s)
				}
				out = append(out, seq...)
			case "bytes":
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return bad("bytes is not base64: %v", err)
				}
				out = append(out, b...)
			default:
				return bad("unknown member %q (want text, key or bytes)", k)
			}
		}
	case '[':
		return bad("input arrays do not nest")
	default:
		return bad("an item is a string or an object")
	}
	if len(out) > MaxInputBytes {
		return nil, &InputError{Item: -1, Msg: fmt.Sprintf("more than %d bytes", MaxInputBytes)}
	}
	return out, nil
}

// namedKeys are the keys Key knows, lower-cased, with their xterm
// encodings; cursorKeys are the ones whose encoding changes in
// application cursor mode (ESC O instead of ESC [).
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "cr": "\r",
	"newline": "\n", "lf": "\n", "linefeed": "\n",
	"tab": "\t", "backtab": "\x1b[Z", "shift-tab": "\x1b[Z",
	"escape": "\x1b", "esc": "\x1b",
	"backspace": "\x7f", "space": " ",
	"insert": "\x1b[2~", "delete": "\x1b[3~", "del": "\x1b[3~",
	"pageup": "\x1b[5~", "pgup": "\x1b[5~", "pagedown": "\x1b[6~", "pgdn": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

var cursorKeys = map[string]byte{
	"up": 'A', "down": 'B', "right": 'C', "left": 'D', "home": 'H', "end": 'F',
}

// ctrlPrefixes are the spellings of a control chord's prefix.
var ctrlPrefixes = []string{"ctrl-", "ctrl+", "control-", "c-", "^"}

// Key returns the bytes a terminal sends for the named key: Enter, Tab,
// Backtab, Escape, Backspace, Space, Insert, Delete, the arrows (Up, Down,
// Left, Right), Home, End, PageUp, PageDown, F1 to F12 and control chords
// (Ctrl-A to Ctrl-Z, also spelled Ctrl+A, C-a or ^A, and Ctrl-@, Ctrl-[,
// Ctrl-\, Ctrl-], Ctrl-^, Ctrl-_, Ctrl-Space, Ctrl-?). Names are not case
// sensitive. It reports false for any other name.
func Key(name string, appCursor bool) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if seq, ok := namedKeys[n]; ok {
		return seq, true
	}
	if c, ok := cursorKeys[n]; ok {
		if appCursor {
			return "\x1bO" + string(c), true
		}
		return "\x1b[" + string(c), true
	}
	for _, p := range ctrlPrefixes {
		rest, ok := strings.CutPrefix(n, p)
		if !ok {
			continue
		}
		switch {
		case rest == "space" || rest == "@":
			return "\x00", true
		case rest == "?":
			return "\x7f", true
		case len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z':
			return string(rest[0] & 0x1f), true
		case len(rest) == 1 && strings.IndexByte("[\\]^_", rest[0]) >= 0:
			return string(rest[0] & 0x1f), true
		}
		return "", false
	}
	return "", false
}
