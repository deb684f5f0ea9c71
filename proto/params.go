package proto

import (
	"bytes"
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
	i := skipWS(params, 0)
	if i >= len(params) || params[i] != '{' {
		return "", false
	}
	found := false
	for i = skipWS(params, i+1); i < len(params) && params[i] == '"'; {
		ke, esc := stringEnd(params, i)
		name := params[i+1 : ke-1]
		i = skipWS(params, skipWS(params, ke)+1) // past ':'
		switch {
		case !esc && string(name) == key:
			if params[i] != '"' {
				return "", false // null or not a string: encoding/json words it
			}
			var end int
			s, end = decodeString(params, i)
			found, i = true, end
		case esc || strings.EqualFold(string(name), key):
			return "", false
		default:
			i = valueEnd(params, i)
		}
		if i = skipWS(params, i); i < len(params) && params[i] == ',' {
			i = skipWS(params, i+1)
		}
	}
	return s, found
}

// decodeString decodes the valid JSON string starting at b[i] == '"' as
// encoding/json does (escapes resolved; invalid UTF-8 and unpaired
// surrogates become U+FFFD) and returns it with the index just past it.
func decodeString(b []byte, i int) (string, int) {
	body := b[i+1:]
	end := 0 // of the body: the first '"' not escaped
	for {
		j := bytes.IndexByte(body[end:], '"')
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
	body = body[:end]
	next := i + 1 + end + 1
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		if len(body) == 0 {
			return "", next
		}
		// No copy: the string shares params' memory (see StringParam).
		return unsafe.String(&body[0], len(body)), next
	}
	return unquote(body), next
}

// unquote decodes the body of a valid JSON string that holds an escape or
// invalid UTF-8, copying runs of plain ASCII whole (escapeEnd finds their
// ends eight bytes at a time: a source escapes every newline).
func unquote(b []byte) string {
	out := make([]byte, 0, len(b)+8) // escapes shrink; only invalid UTF-8 (1 byte to 3) grows
	for i := 0; i < len(b); {
		run := escapeEnd(b, i)
		out = append(out, b[i:run]...)
		i = run
		if i == len(b) {
			break
		}
		if c := b[i]; c >= utf8.RuneSelf {
			r, w := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && w == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, b[i:i+w]...)
			}
			i += w
			continue
		}
		i++ // the backslash
		switch e := b[i]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(b[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					r2 = hex4(b[i+3:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		}
		i++
	}
	if len(out) == 0 {
		return ""
	}
	return unsafe.String(&out[0], len(out)) // out is not used again
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
