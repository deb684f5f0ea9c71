package proto

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// StringParam reads the string member key (a plain ASCII name) of a
// request's params object without encoding/json, for methods whose params
// carry one large string (a source). params must be JSON that
// DecodeRequest accepted. ok reports that the fast reading applies: the
// object has a member named exactly key whose value (the last one, when it
// repeats) is a string, and no other member that encoding/json could match
// to key (a case-folded or escaped name). Then s is the string as
// json.Unmarshal decodes it; otherwise the caller decodes params with
// encoding/json, which also words any error. A string without escapes
// shares params' memory rather than copying it (a source is most of a
// request), so params must not be modified while s is in use: a
// Request's Params is its own copy, written once by DecodeRequest.
func StringParam(params []byte, key string) (s string, ok bool) {
	s, _, ok = StringParamInto(params, key, nil)
	return s, ok
}

// StringParamInto is StringParam decoding an escaped string into buf
// (grown when it is too small) rather than fresh memory, and returning the
// buffer: the string then lives in buf, and is valid until buf is written
// again.
func StringParamInto(params []byte, key string, buf []byte) (s string, out []byte, ok bool) {
	i := skipWS(params, 0)
	if i >= len(params) || params[i] != '{' {
		return "", buf, false
	}
	found := false
	for i = skipWS(params, i+1); i < len(params) && params[i] == '"'; {
		ke, esc := stringEnd(params, i)
		name := params[i+1 : ke-1]
		i = skipWS(params, skipWS(params, ke)+1) // past ':'
		switch {
		case !esc && string(name) == key:
			if params[i] != '"' {
				return "", buf, false // null or not a string: encoding/json words it
			}
			var end int
			s, buf, end = decodeString(params, i, buf)
			found, i = true, end
		case esc || strings.EqualFold(string(name), key):
			return "", buf, false
		default:
			i = valueEnd(params, i)
		}
		if i = skipWS(params, i); i < len(params) && params[i] == ',' {
			i = skipWS(params, i+1)
		}
	}
	return s, buf, found
}

// SoleStringParam is StringParam for a params object whose only member
// is key (perhaps repeated): ok is false when any other member is present,
// so that the caller's full decoding (with its defaults and checks for the
// other members) is needed only when there are others.
func SoleStringParam(params []byte, key string) (s string, ok bool) {
	i := skipWS(params, 0)
	if i >= len(params) || params[i] != '{' {
		return "", false
	}
	found := false
	for i = skipWS(params, i+1); i < len(params) && params[i] == '"'; {
		ke, esc := stringEnd(params, i)
		if esc || string(params[i+1:ke-1]) != key {
			return "", false
		}
		i = skipWS(params, skipWS(params, ke)+1) // past ':'
		if params[i] != '"' {
			return "", false
		}
		s, _, i = decodeString(params, i, nil)
		found = true
		if i = skipWS(params, i); i < len(params) && params[i] == ',' {
			i = skipWS(params, i+1)
		}
	}
	return s, found
}

// decodeString decodes the valid JSON string starting at b[i] == '"' as
// encoding/json does (escapes resolved; invalid UTF-8 and unpaired
// surrogates become U+FFFD) and returns it with the index just past it.
// A string of plain ASCII is returned without a copy, sharing b's memory
// (see StringParam). Otherwise it is decoded in one pass that copies
// eight bytes at a time while it looks for the next byte to decode (a
// quote, a backslash or non-ASCII), since a source escapes every newline
// and quote and the runs between are short.
func decodeString(b []byte, i int, buf []byte) (string, []byte, int) {
	start := i + 1
	j := specialEnd(b, start)
	if j < len(b) && b[j] == '"' {
		if j == start {
			return "", buf, j + 1
		}
		return unsafe.String(&b[start], j-start), buf, j + 1
	}
	// Escapes shrink the text; only invalid UTF-8 (1 byte to 3) grows it,
	// and room makes space for that. The slack takes whole-word stores.
	out := buf[:cap(buf)]
	if need := len(b) - start + 16; len(out) < need {
		out = make([]byte, need)
	}
	o := copy(out, b[start:j])
	for i = j; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			if o == 0 {
				return "", out, i + 1
			}
			return unsafe.String(&out[0], o), out, i + 1 // out is the caller's until it writes it again
		case c == '\\':
			switch e := b[i+1]; e {
			case 'n':
				out[o] = '\n'
			case 't':
				out[o] = '\t'
			case 'r':
				out[o] = '\r'
			case 'b':
				out[o] = '\b'
			case 'f':
				out[o] = '\f'
			case 'u':
				var r rune
				r, i = unescapeU(b, i+2)
				out = room(out, o, utf8.UTFMax+8)
				o += utf8.EncodeRune(out[o:], r)
				goto plain
			default: // '"', '\\', '/'
				out[o] = e
			}
			o++
			i += 2
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRune(b[i:])
			out = room(out, o, utf8.UTFMax+8)
			if r == utf8.RuneError && w == 1 {
				o += copy(out[o:], "\uFFFD")
			} else {
				o += copy(out[o:], b[i:i+w])
			}
			i += w
		default:
			out[o] = c // unreachable: plain bytes are copied below
			o++
			i++
		}
	plain:
		// Copy plain bytes up to the next one to decode, a word at a time:
		// the whole word is stored, and o moves past its plain bytes only.
		for i+8 <= len(b) {
			if o+8 > len(out) {
				out = room(out, o, 8)
			}
			x := binary.LittleEndian.Uint64(b[i:])
			binary.LittleEndian.PutUint64(out[o:], x)
			if m := specialMask(x); m != 0 {
				k := bits.TrailingZeros64(m) / 8
				i, o = i+k, o+k
				break
			}
			i, o = i+8, o+8
		}
		if i+8 > len(b) {
			for i < len(b) && !isSpecial(b[i]) {
				out = room(out, o, 1)
				out[o] = b[i]
				i, o = i+1, o+1
			}
		}
	}
	return string(out[:o]), out, len(b) // unreachable for valid JSON: the closing quote ends it
}

// room returns out with at least n bytes from o on.
func room(out []byte, o, n int) []byte {
	if o+n <= len(out) {
		return out
	}
	return append(out, make([]byte, len(out)+n)...)
}

// unescapeU decodes the \u escape whose four hex digits start at b[i]
// (two escapes for a surrogate pair, joined) and returns its rune and the
// index just past it.
func unescapeU(b []byte, i int) (rune, int) {
	r := hex4(b[i:])
	i += 4
	if !utf16.IsSurrogate(r) {
		return r, i
	}
	r2 := rune(-1)
	if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
		r2 = hex4(b[i+2:])
	}
	if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
		return dec, i + 6
	}
	return utf8.RuneError, i
}

// hex4 reads the four hex digits a valid \u escape has.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// maxFastIntDigits is the most digits FlatParams reads itself: any such
// integer fits an int64 (and JSON's exact range).
const maxFastIntDigits = 15

// FlatParam is one member a params object read by FlatParams may have.
type FlatParam struct {
	Name string // a plain ASCII name, matched exactly
	Int  bool   // an integer member; a string one otherwise
	// Set by FlatParams: whether the member is present, and its value.
	Set bool
	Str string
	N   int64
}

// FlatParams is SoleStringParam for a params object of a few string and
// integer members, such as exec's {"src": …, "mode": "run", "position":
// "value", "timeout_ms": 250} from the MCP facade: it reads them into
// members and reports true when every member of the object is one of
// members, under its exact name, at most once, a string member's value a
// string and an integer member's an integer written as plain digits (at
// most 15, no sign, fraction or exponent). Otherwise it reports false and
// the caller decodes params with encoding/json (members are then
// meaningless). Strings share params' memory as StringParam's do.
func FlatParams(params []byte, members []FlatParam) bool {
	for k := range members {
		members[k].Set, members[k].Str, members[k].N = false, "", 0
	}
	i := skipWS(params, 0)
	if i >= len(params) || params[i] != '{' {
		return false
	}
	for i = skipWS(params, i+1); i < len(params) && params[i] == '"'; {
		ke, esc := stringEnd(params, i)
		if esc {
			return false
		}
		name := params[i+1 : ke-1]
		i = skipWS(params, skipWS(params, ke)+1) // past ':'
		if i >= len(params) {
			return false
		}
		m := -1
		for k := range members {
			if members[k].Name == string(name) {
				m = k
				break
			}
		}
		if m < 0 || members[m].Set {
			return false
		}
		mem := &members[m]
		if mem.Int {
			j := i
			for j < len(params) && params[j] >= '0' && params[j] <= '9' {
				mem.N = mem.N*10 + int64(params[j]-'0')
				j++
			}
			if d := j - i; d == 0 || d > maxFastIntDigits || (d > 1 && params[i] == '0') {
				return false
			}
			if j = skipWS(params, j); j >= len(params) || (params[j] != ',' && params[j] != '}') {
				return false // a fraction or an exponent
			}
			i = j
		} else {
			if params[i] != '"' {
				return false
			}
			mem.Str, _, i = decodeString(params, i, nil)
		}
		mem.Set = true
		if i = skipWS(params, i); i < len(params) && params[i] == ',' {
			i = skipWS(params, i+1)
		}
	}
	return i < len(params) && params[i] == '}'
}
