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
// descriptors.
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
	var b strings.Builder
	appendInline(&b, v)
	return b.String()
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

func appendInline(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case nil, Null:
		b.WriteString("null")
	case Bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Int:
		var buf [24]byte
		b.Write(strconv.AppendInt(buf[:0], int64(x), 10))
	case Float:
		b.WriteString(FormatFloat(float64(x)))
	case Str:
		appendQuoted(b, string(x))
	case Bytes:
		b.WriteString("<bytes ")
		b.WriteString(FormatSize(int64(len(x))))
		b.WriteByte('>')
	case Path:
		s := lossy(string(x))
		if strings.ContainsAny(s, " \t\n") {
			appendQuoted(b, s)
		} else {
			b.WriteString(s)
		}
	case *Glob:
		b.WriteString(x.Pattern)
	case *Regex:
		b.WriteString(`re"`)
		b.WriteString(strings.ReplaceAll(x.Source, `"`, `\"`))
		b.WriteByte('"')
	case Size:
		b.WriteString(FormatSize(int64(x)))
	case Duration:
		b.WriteString(FormatDuration(int64(x)))
	case DateTime:
		b.WriteString(FormatDateTime(x))
	case Time:
		b.WriteString(FormatTime(x))
	case Range:
		var buf [24]byte
		b.Write(strconv.AppendInt(buf[:0], x.Lo, 10))
		if x.Inclusive {
			b.WriteString("..=")
		} else {
			b.WriteString("..")
		}
		b.Write(strconv.AppendInt(buf[:0], x.Hi, 10))
	case *List:
		b.WriteByte('[')
		for i, it := range x.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			appendInline(b, it)
		}
		b.WriteByte(']')
	case *Record:
		appendRecord(b, x.keys, x.vals)
	case *Table:
		b.WriteByte('[')
		vals := make([]Value, len(x.Cols))
		for r := 0; r < x.N; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			for c := range x.Cols {
				vals[c] = x.Data[c][r]
			}
			appendRecord(b, x.Cols, vals)
		}
		b.WriteByte(']')
	case *Outcome:
		// outcome(status: 0, ok: true); a signalled process has a null
		// status and names its signal: outcome(status: null, signal: "SIGKILL", ok: false).
		b.WriteString("outcome(status: ")
		if x.Status != nil {
			b.WriteString(strconv.Itoa(*x.Status))
		} else {
			b.WriteString("null")
		}
		if x.Signal != "" {
			b.WriteString(", signal: ")
			b.WriteString(strconv.Quote(x.Signal))
		}
		if x.Ok() {
			b.WriteString(", ok: true)")
		} else {
			b.WriteString(", ok: false)")
		}
	case *Error:
		b.WriteString(x.Code)
		b.WriteString(": ")
		b.WriteString(x.Msg)
	case *Secret:
		b.WriteString("secret(")
		b.WriteString(x.Name)
		b.WriteByte(')')
	case *Builtin:
		b.WriteString("<builtin ")
		b.WriteString(x.Name)
		b.WriteByte('>')
	case *Namespace:
		b.WriteString("<namespace ")
		b.WriteString(x.Name)
		b.WriteByte('>')
	case Inliner:
		b.WriteString(x.InlineString())
	default:
		b.WriteByte('<')
		b.WriteString(TypeName(v))
		b.WriteByte('>')
	}
}

func appendRecord(b *strings.Builder, keys []string, vals []Value) {
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if isIdent(k) {
			b.WriteString(k)
		} else {
			appendQuoted(b, k)
		}
		b.WriteString(": ")
		appendInline(b, vals[i])
	}
	b.WriteByte('}')
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
	var b strings.Builder
	b.Grow(len(s) + 2)
	appendQuoted(&b, s)
	return b.String()
}

// appendQuoted writes s double-quoted, escaping backslash, quote, newline,
// tab, carriage return and NUL; invalid UTF-8 bytes become U+FFFD.
func appendQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
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
			b.WriteString(s[start:i])
			b.WriteString(esc)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(s[start:i])
			b.WriteRune(utf8.RuneError)
			i++
			start = i
			continue
		}
		i += n
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
