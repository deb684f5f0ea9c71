package value

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Inliner may be implemented by value types defined outside this package
// (closures, tasks, streams, commands) to supply their opaque one-line
// descriptor. Without it they render as <kind>.
type Inliner interface {
	InlineString() string
}

// Inline renders v canonically on one line; this is the text the
// conformance corpus compares `value =` against. Strings are quoted with
// escapes, collections use literal syntax, tables render as a list of
// records, units render compactly, and handles render as opaque
// descriptors. What is nested deeper than MaxDepth renders as "…", and a
// rendering longer than MaxEncodedBytes is cut there, ending in "…".
func Inline(v Value) string {
	switch x := v.(type) {
	case Str:
		return quote(string(x))
	case Int:
		return strconv.FormatInt(int64(x), 10)
	case Bool:
		if x {
			return "true"
		}
		return "false"
	}
	t := textBuf{limit: MaxEncodedBytes}
	appendInline(&t, v, 0)
	if t.cut {
		return string(t.b) + elided
	}
	return string(t.b)
}

// Interp renders v inside string interpolation: strings and paths appear
// as raw text, everything else as Inline.
func Interp(v Value) string {
	switch x := v.(type) {
	case Str:
		return string(x)
	case Path:
		return lossy(string(x))
	}
	return Inline(v)
}

// TypeName is the source-level type name of v: its Kind's name, with
// builtins reported as "closure" and a nil interface as "null".
func TypeName(v Value) string {
	if v == nil {
		return "null"
	}
	return v.Kind().String()
}

// FormatFloat renders a float as the shortest decimal that round-trips,
// never in exponent form and without a trailing ".0": 2.5, 4, 1000000000,
// inf, -inf, nan.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// InlineLimit is Inline cut to at most n bytes (on a rune boundary); cut
// reports whether anything was left out. Its work is in proportion to n,
// not to the size of v: collections stop at the item that fills the
// budget and long strings are read only as far as they are shown. Error
// messages and other bounded texts use it to quote a value of any size.
func InlineLimit(v Value, n int) (s string, cut bool) {
	t := textBuf{limit: max(n, 0)}
	appendInline(&t, v, 0)
	return string(t.b), t.cut
}

// InlineShort is InlineLimit marking a cut with "…", for messages.
func InlineShort(v Value, n int) string {
	s, cut := InlineLimit(v, n)
	if cut {
		s += "…"
	}
	return s
}

// elided stands in for what a rendering leaves out: a value nested past
// MaxDepth, or the rest of a text cut at its budget.
const elided = "…"

// textBuf collects rendered text up to limit bytes. A write that would
// pass the limit keeps what fits, cut on a rune boundary, and marks the
// buffer cut; later writes are dropped, and renderers check full() to stop
// walking, so a rendering does work in proportion to what it keeps.
type textBuf struct {
	b     []byte
	limit int
	cut   bool
}

func (t *textBuf) full() bool { return t.cut }

// room is how many more bytes fit.
func (t *textBuf) room() int { return t.limit - len(t.b) }

func (t *textBuf) writeString(s string) {
	if t.cut {
		return
	}
	if len(s) <= t.room() {
		t.b = append(t.b, s...)
		return
	}
	n := max(t.room(), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	t.b = append(t.b, s[:n]...)
	t.cut = true
}

func (t *textBuf) writeByte(c byte) {
	if t.cut {
		return
	}
	if t.room() < 1 {
		t.cut = true
		return
	}
	t.b = append(t.b, c)
}

func (t *textBuf) write(p []byte) { t.writeString(string(p)) }

func (t *textBuf) writeRune(r rune) {
	var buf [utf8.UTFMax]byte
	t.writeString(string(utf8.AppendRune(buf[:0], r)))
}

// appendInline writes v at nesting depth; past MaxDepth it writes the
// elision mark instead, so no value is too deep to render.
func appendInline(b *textBuf, v Value, depth int) {
	if b.full() {
		return
	}
	if depth > MaxDepth {
		b.writeString(elided)
		return
	}
	switch x := v.(type) {
	case nil, Null:
		b.writeString("null")
	case Bool:
		if x {
			b.writeString("true")
		} else {
			b.writeString("false")
		}
	case Int:
		var buf [24]byte
		b.write(strconv.AppendInt(buf[:0], int64(x), 10))
	case Float:
		b.writeString(FormatFloat(float64(x)))
	case Str:
		appendQuoted(b, string(x))
	case Bytes:
		b.writeString("<bytes ")
		b.writeString(FormatSize(int64(len(x))))
		b.writeByte('>')
	case Path:
		s := string(x)
		if len(s) > b.room() {
			s = s[:b.room()+1] // the rest could not be shown
		}
		s = lossy(s)
		if strings.ContainsAny(s, " \t\n") {
			appendQuoted(b, s)
		} else {
			b.writeString(s)
		}
	case *Glob:
		b.writeString(x.Pattern)
	case *Regex:
		b.writeString(`re"`)
		appendEscapedQuotes(b, x.Source)
		b.writeByte('"')
	case Size:
		b.writeString(FormatSize(int64(x)))
	case Duration:
		b.writeString(FormatDuration(int64(x)))
	case DateTime:
		b.writeString(FormatDateTime(x))
	case Time:
		b.writeString(FormatTime(x))
	case Range:
		var buf [24]byte
		b.write(strconv.AppendInt(buf[:0], x.Lo, 10))
		if x.Inclusive {
			b.writeString("..=")
		} else {
			b.writeString("..")
		}
		b.write(strconv.AppendInt(buf[:0], x.Hi, 10))
	case *List:
		b.writeByte('[')
		for i, it := range x.Items {
			if b.full() {
				return
			}
			if i > 0 {
				b.writeString(", ")
			}
			appendInline(b, it, depth+1)
		}
		b.writeByte(']')
	case *Record:
		appendRecord(b, x.keys, x.vals, depth)
	case *Table:
		b.writeByte('[')
		vals := make([]Value, len(x.Cols))
		for r := 0; r < x.N; r++ {
			if b.full() {
				return
			}
			if r > 0 {
				b.writeString(", ")
			}
			for c := range x.Cols {
				vals[c] = x.Data[c][r]
			}
			appendRecord(b, x.Cols, vals, depth+1)
		}
		b.writeByte(']')
	case *Outcome:
		// outcome(status: 0, ok: true); a signalled process has a null
		// status and names its signal: outcome(status: null, signal: "SIGKILL", ok: false).
		b.writeString("outcome(status: ")
		if x.Status != nil {
			b.writeString(strconv.Itoa(*x.Status))
		} else {
			b.writeString("null")
		}
		if x.Signal != "" {
			b.writeString(", signal: ")
			b.writeString(strconv.Quote(x.Signal))
		}
		if x.Ok() {
			b.writeString(", ok: true)")
		} else {
			b.writeString(", ok: false)")
		}
	case *Error:
		b.writeString(x.Code)
		b.writeString(": ")
		b.writeString(x.Msg)
	case *Secret:
		b.writeString("secret(")
		b.writeString(x.Name)
		b.writeByte(')')
	case *Builtin:
		b.writeString("<builtin ")
		b.writeString(x.Name)
		b.writeByte('>')
	case *Namespace:
		b.writeString("<namespace ")
		b.writeString(x.Name)
		b.writeByte('>')
	case Inliner:
		b.writeString(x.InlineString())
	default:
		b.writeByte('<')
		b.writeString(TypeName(v))
		b.writeByte('>')
	}
}

// appendRecord writes a record (or a table row) whose fields sit at
// depth+1.
func appendRecord(b *textBuf, keys []string, vals []Value, depth int) {
	b.writeByte('{')
	for i, k := range keys {
		if b.full() {
			return
		}
		if i > 0 {
			b.writeString(", ")
		}
		if isIdent(k) {
			b.writeString(k)
		} else {
			appendQuoted(b, k)
		}
		b.writeString(": ")
		appendInline(b, vals[i], depth+1)
	}
	b.writeByte('}')
}

// appendEscapedQuotes writes s with each `"` preceded by a backslash.
func appendEscapedQuotes(b *textBuf, s string) {
	for !b.full() {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.writeString(s)
			return
		}
		b.writeString(s[:i])
		b.writeString(`\"`)
		s = s[i+1:]
	}
}

// isIdent reports whether a record key can be written bare.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

func quote(s string) string {
	t := textBuf{limit: MaxEncodedBytes}
	appendQuoted(&t, s)
	if t.cut {
		return string(t.b) + elided
	}
	return string(t.b)
}

// appendQuoted writes s double-quoted, escaping backslash, quote, newline,
// tab, carriage return and NUL; invalid UTF-8 bytes become U+FFFD. It
// reads s only as far as the buffer has room.
func appendQuoted(b *textBuf, s string) {
	b.writeByte('"')
	start := 0
	for i := 0; i < len(s); {
		if i-start >= b.room() {
			break // the plain run already fills the budget
		}
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch c {
			case '"':
				esc = `\"`
			case '\\':
				esc = `\\`
			case '\n':
				esc = `\n`
			case '\t':
				esc = `\t`
			case '\r':
				esc = `\r`
			case 0:
				esc = `\0`
			default:
				i++
				continue
			}
			b.writeString(s[start:i])
			b.writeString(esc)
			if b.full() {
				return
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.writeString(s[start:i])
			b.writeRune(utf8.RuneError)
			if b.full() {
				return
			}
			i++
			start = i
			continue
		}
		i += n
	}
	b.writeString(s[start:])
	b.writeByte('"')
}
