package syntax

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jtype is the JSON type of a scanned value.
type jtype uint8

const (
	jNull jtype = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

func (t jtype) String() string {
	switch t {
	case jNull:
		return "null"
	case jBool:
		return "a boolean"
	case jNum:
		return "a number"
	case jStr:
		return "a string"
	case jArr:
		return "an array"
	default:
		return "an object"
	}
}

// jnode is one scanned JSON value in a flat tree: children of an array or
// object are linked through first/next by index into dec.nodes.
type jnode struct {
	key   string // member name when the value sits in an object
	text  string // decoded string, or a number's literal text
	typ   jtype
	b     bool
	count int32 // number of children
	first int32 // first child, -1 when none
	next  int32 // next sibling, -1 when none
}

// rootElem and memberElem are the elem arguments of scanValue for the
// top-level value and for an object member; array elements pass their
// index.
const (
	rootElem   = -2
	memberElem = -1
)

// scanValue scans one JSON value at d.pos and returns its node index. key
// is its member name; elem places it in the error path.
func (d *dec) scanValue(depth int, key string, elem int32) int32 {
	d.skipSpace()
	if d.pos >= len(d.src) {
		d.failf("unexpected end of JSON input")
	}
	if len(d.nodes) >= maxDecodeValues {
		d.failf("more than %d JSON values", maxDecodeValues)
	}
	idx := int32(len(d.nodes))
	d.nodes = append(d.nodes, jnode{key: key, first: -1, next: -1})
	if elem != rootElem {
		d.path = append(d.path, pathSeg{node: idx, idx: elem})
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		d.enterJSON(depth)
		d.nodes[idx].typ = jObj
		d.scanObject(idx, depth+1)
	case c == '[':
		d.enterJSON(depth)
		d.nodes[idx].typ = jArr
		d.scanArray(idx, depth+1)
	case c == '"':
		d.nodes[idx].typ = jStr
		d.nodes[idx].text = d.scanString()
	case c == '-' || (c >= '0' && c <= '9'):
		d.nodes[idx].typ = jNum
		d.nodes[idx].text = d.scanNumber()
	case strings.HasPrefix(d.src[d.pos:], "true"):
		d.nodes[idx].typ, d.nodes[idx].b = jBool, true
		d.pos += 4
	case strings.HasPrefix(d.src[d.pos:], "false"):
		d.nodes[idx].typ = jBool
		d.pos += 5
	case strings.HasPrefix(d.src[d.pos:], "null"):
		d.pos += 4
	default:
		d.failf("invalid character %q at byte %d", c, d.pos)
	}
	if elem != rootElem {
		d.pop()
	}
	return idx
}

func (d *dec) enterJSON(depth int) {
	if depth >= maxDecodeDepth {
		d.failf("JSON nesting deeper than %d", maxDecodeDepth)
	}
}

func (d *dec) skipSpace() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// expect consumes c after optional white space.
func (d *dec) expect(c byte) {
	d.skipSpace()
	if d.pos >= len(d.src) {
		d.failf("unexpected end of JSON input, want %q", c)
	}
	if d.src[d.pos] != c {
		d.failf("invalid character %q at byte %d, want %q", d.src[d.pos], d.pos, c)
	}
	d.pos++
}

// more reports whether another element follows in a container closed by
// end, consuming the separating comma.
func (d *dec) more(end byte, first bool) bool {
	d.skipSpace()
	if d.pos < len(d.src) && d.src[d.pos] == end {
		d.pos++
		return false
	}
	if !first {
		d.expect(',')
	}
	return true
}

func (d *dec) link(parent, last, child int32) {
	if last < 0 {
		d.nodes[parent].first = child
	} else {
		d.nodes[last].next = child
	}
	d.nodes[parent].count++
}

func (d *dec) scanObject(idx int32, depth int) {
	d.pos++ // {
	last := int32(-1)
	for first := true; d.more('}', first); first = false {
		d.skipSpace()
		if d.pos >= len(d.src) || d.src[d.pos] != '"' {
			d.failf("object key must be a string at byte %d", d.pos)
		}
		key := d.scanString()
		d.expect(':')
		child := d.scanValue(depth, key, memberElem)
		d.link(idx, last, child)
		last = child
	}
}

func (d *dec) scanArray(idx int32, depth int) {
	d.pos++ // [
	last := int32(-1)
	for i := 0; d.more(']', i == 0); i++ {
		child := d.scanValue(depth, "", int32(i))
		d.link(idx, last, child)
		last = child
	}
}

// scanNumber scans a number with the strict JSON grammar and returns its
// text; conversion happens where the field's Go type is known.
func (d *dec) scanNumber() string {
	s, start := d.src, d.pos
	i := start
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		d.failf("invalid number at byte %d", start)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			d.failf("invalid number at byte %d", start)
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			d.failf("invalid number at byte %d", start)
		}
	}
	d.pos = i
	return s[start:i]
}

// scanString scans a quoted string at d.pos and returns its decoded value,
// a substring of the input when it has no escapes. Invalid UTF-8, raw
// control characters and lone surrogates are rejected.
func (d *dec) scanString() string {
	s := d.src
	start := d.pos + 1
	i := start
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return s[start:i]
		case c == '\\':
			return d.scanEscaped(start, i)
		case c < 0x20:
			d.failf("control character in string at byte %d", i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, w := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && w == 1 {
				d.failf("invalid UTF-8 in string at byte %d", i)
			}
			i += w
		}
	}
	d.failf("unterminated string at byte %d", start-1)
	return ""
}

// scanEscaped finishes a string from i, the first backslash, building the
// decoded value from the plain prefix s[start:i].
func (d *dec) scanEscaped(start, i int) string {
	s := d.src
	b := make([]byte, 0, i-start+16)
	b = append(b, s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return string(b)
		case c == '\\':
			if i+1 >= len(s) {
				d.failf("unterminated string at byte %d", start-1)
			}
			esc := s[i+1]
			i += 2
			switch esc {
			case '"', '\\', '/':
				b = append(b, esc)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := d.hex4(i)
				i += 4
				if utf16.IsSurrogate(r) {
					if r >= 0xdc00 || i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
						d.failf("lone surrogate in string at byte %d", i-6)
					}
					r2 := d.hex4(i + 2)
					r = utf16.DecodeRune(r, r2)
					if r == utf8.RuneError {
						d.failf("lone surrogate in string at byte %d", i-6)
					}
					i += 6
				}
				b = utf8.AppendRune(b, r)
			default:
				d.failf("invalid escape %q in string at byte %d", esc, i-2)
			}
		case c < 0x20:
			d.failf("control character in string at byte %d", i)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, w := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && w == 1 {
				d.failf("invalid UTF-8 in string at byte %d", i)
			}
			b = append(b, s[i:i+w]...)
			i += w
		}
	}
	d.failf("unterminated string at byte %d", start-1)
	return ""
}

// hex4 reads the four hex digits of a \u escape at i.
func (d *dec) hex4(i int) rune {
	if i+4 > len(d.src) {
		d.failf("short \\u escape at byte %d", i-2)
	}
	v, err := strconv.ParseUint(d.src[i:i+4], 16, 32)
	if err != nil {
		d.failf("invalid \\u escape at byte %d", i-2)
	}
	return rune(v)
}
