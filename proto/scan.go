package proto

import (
	"bytes"
	"encoding/json"
	"iter"
)

// The helpers below walk JSON text already checked by json.Valid; they do
// not re-validate and must not be used on unchecked input.

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"'
// and whether it contains escapes. The string is valid, so it hops from
// quote to quote (a quote after an odd run of backslashes is escaped):
// far fewer stops than at every escape.
func stringEnd(b []byte, i int) (int, bool) {
	body := b[i+1:]
	end := 0 // of the body: its first quote not escaped
	for {
		j := bytes.IndexByte(body[end:], '"')
		if j < 0 {
			return len(b), bytes.IndexByte(body, '\\') >= 0
		}
		end += j
		k := end
		for k > 0 && body[k-1] == '\\' {
			k--
		}
		if (end-k)%2 == 0 {
			break
		}
		end++
	}
	return i + 1 + end + 1, bytes.IndexByte(body[:end], '\\') >= 0
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i)
		return e
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i, _ = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && !isWS(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}

// members iterates over the members of the object starting at b[i].
type members struct {
	b []byte
	i int
}

func newMembers(b []byte, i int) members { return members{b, skipWS(b, i+1)} }

// next returns the next member's key as quoted JSON text, whether the key
// has escapes, and its raw value; both alias b.
func (m *members) next() (key []byte, esc bool, val []byte, ok bool) {
	b, i := m.b, m.i
	if i >= len(b) || b[i] != '"' {
		return nil, false, nil, false
	}
	ke, esc := stringEnd(b, i)
	key = b[i:ke]
	i = skipWS(b, ke)
	i = skipWS(b, i+1) // ':'
	ve := valueEnd(b, i)
	val = b[i:ve]
	i = skipWS(b, ve)
	if i < len(b) && b[i] == ',' {
		i = skipWS(b, i+1)
	}
	m.i = i
	return key, esc, val, true
}

// jsonString decodes raw as a JSON string.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if _, esc := stringEnd(raw, 0); !esc {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// FrameDepth reports whether frame is exactly one JSON value and how
// deeply its arrays and objects nest, in one iterative pass: unlike
// json.Valid it has no depth limit of its own, so a caller can tell deep
// but valid JSON (refuse it past MaxFrameDepth) from malformed JSON.
func FrameDepth(frame []byte) (depth int, valid bool) { return scanJSON(frame) }

// FrameMember returns the raw value of the top-level member name of a
// frame that FrameDepth found valid, or nil when the frame is not an
// object or has no such member. It reads without recursion and returns
// the last of repeated members. The result aliases frame.
func FrameMember(frame []byte, name string) []byte {
	i := skipWS(frame, 0)
	if i >= len(frame) || frame[i] != '{' {
		return nil
	}
	var found []byte
	it := newMembers(frame, i)
	for {
		qkey, esc, val, ok := it.next()
		if !ok {
			return found
		}
		key := string(qkey[1 : len(qkey)-1])
		if esc {
			key, _ = jsonString(qkey)
		}
		if key == name {
			found = val
		}
	}
}

// Frame is what ScanFrame learns of a frame in one pass.
type Frame struct {
	Depth int  // the deepest nesting of arrays and objects
	Valid bool // exactly one JSON value, with whitespace around it at most
	First byte // the value's first byte ('{', '[', '"', a digit…); 0 when there is none

	b   []byte
	top topMembers
}

// ScanFrame checks frame as FrameDepth does, in one iterative pass, and
// notes where the members of a top-level object are, so that Members need
// not walk the frame again. Like json.Valid it does not insist that
// strings be valid UTF-8.
func ScanFrame(frame []byte) Frame {
	f := Frame{b: frame}
	f.Depth, f.Valid = scanJSONTop(frame, &f.top)
	if i := skipWS(frame, 0); i < len(frame) {
		f.First = frame[i]
	}
	return f
}

// Members yields the key (quoted JSON text, escapes as written) and the
// raw value of each top-level member of a valid object frame, in order,
// repeated members each time; nothing for any other frame. Both alias the
// frame.
func (f *Frame) Members() iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) {
		if !f.Valid || f.First != '{' {
			return
		}
		if !f.top.over {
			for _, m := range f.top.m[:f.top.n] {
				if !yield(f.b[m.key[0]:m.key[1]], f.b[m.val[0]:m.val[1]]) {
					return
				}
			}
			return
		}
		it := newMembers(f.b, skipWS(f.b, 0))
		for {
			key, _, val, ok := it.next()
			if !ok || !yield(key, val) {
				return
			}
		}
	}
}
