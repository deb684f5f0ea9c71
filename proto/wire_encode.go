package proto

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// MarshalWire returns the canonical encoding of v.
func MarshalWire(v Value) ([]byte, error) { return AppendWire(nil, v) }

// AppendWire appends the canonical encoding of v to dst. It fails on a
// value DecodeWire would reject: nesting deeper than MaxWireDepth, a
// negative size, a time of day outside [0, 24h), a datetime outside years
// 0000-9999, a table column whose length is not N, or a record whose key
// and value counts differ. Record keys and table columns are assumed
// unique.
func AppendWire(dst []byte, v Value) ([]byte, error) {
	e := encoder{b: dst}
	if err := e.value(v, 0); err != nil {
		return dst, err
	}
	return e.b, nil
}

type encoder struct{ b []byte }

func (e *encoder) tag(t Tag) {
	e.b = append(e.b, `{"$":"`...)
	e.b = append(e.b, t...)
	e.b = append(e.b, '"')
}

func (e *encoder) key(k string) {
	e.b = append(e.b, ',')
	e.b = AppendString(e.b, k)
	e.b = append(e.b, ':')
}

func (e *encoder) str(k, s string) {
	e.key(k)
	e.b = AppendString(e.b, s)
}

func (e *encoder) int(k string, n int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, n, 10)
}

func (e *encoder) value(v Value, depth int) error {
	if depth > MaxWireDepth {
		return &WireError{Err: ErrTooDeep}
	}
	if isNilPointer(v) {
		v = nil
	}
	switch x := v.(type) {
	case nil, Null:
		e.tag(TagNull)
	case Bool:
		e.tag(TagBool)
		e.key("v")
		e.b = strconv.AppendBool(e.b, bool(x))
	case Int:
		e.tag(TagInt)
		e.int("v", int64(x))
	case Float:
		e.tag(TagFloat)
		e.key("v")
		e.b = AppendFloat(e.b, float64(x))
	case Str:
		e.tag(TagStr)
		e.str("v", string(x))
	case Bytes:
		e.tag(TagBytes)
		e.key("v")
		e.b = appendBase64(e.b, x)
	case *Path:
		e.tag(TagPath)
		e.str("v", x.V)
		if x.Raw != nil {
			e.key("raw")
			e.b = appendBase64(e.b, x.Raw)
		}
	case Size:
		if x < 0 {
			return &WireError{Err: ErrBadNumber, Detail: "negative size"}
		}
		e.tag(TagSize)
		e.int("v", int64(x))
	case Duration:
		e.tag(TagDuration)
		e.int("v", int64(x))
	case DateTime:
		if y := x.T.Year(); y < 0 || y > 9999 {
			return &WireError{Err: ErrBadDateTime, Detail: "year " + strconv.Itoa(y) + " outside 0000-9999"}
		}
		e.tag(TagDateTime)
		e.key("v")
		e.b = AppendDateTime(e.b, x.T)
	case Time:
		if x < 0 || int64(x) >= int64(24*time.Hour) {
			return &WireError{Err: ErrBadTime, Detail: "time of day out of range"}
		}
		e.tag(TagTime)
		e.key("v")
		e.b = append(e.b, '"')
		e.b = AppendTimeOfDay(e.b, int64(x))
		e.b = append(e.b, '"')
	case List:
		e.tag(TagList)
		e.key("v")
		return e.list(x, depth)
	case *Record:
		if len(x.Keys) != len(x.Vals) {
			return &WireError{Err: ErrBadShape, Detail: "record keys and values differ in number"}
		}
		e.tag(TagRecord)
		e.key("v")
		return e.fields(x.Keys, x.Vals, depth)
	case *Table:
		return e.table(x, depth)
	case *Outcome:
		return e.outcome(x, depth)
	case *Error:
		e.tag(TagError)
		e.str("code", x.Code)
		e.str("msg", x.Msg)
		e.span(x.Span)
		if x.Hint != "" {
			e.str("hint", x.Hint)
		}
		if x.Stderr != nil {
			e.key("stderr")
			if err := e.value(x.Stderr, depth+1); err != nil {
				return err
			}
		}
	case *Glob:
		e.tag(TagGlob)
		e.str("pattern", x.Pattern)
		if x.Hidden {
			e.b = append(e.b, `,"hidden":true`...)
		}
	case *Regex:
		e.tag(TagRegex)
		e.str("src", x.Src)
	case *Range:
		e.tag(TagRange)
		e.int("start", x.Start)
		e.int("end", x.End)
		e.key("inclusive")
		e.b = strconv.AppendBool(e.b, x.Inclusive)
	case *Task:
		e.tag(TagTask)
		e.str("id", x.ID)
		e.key("done")
		e.b = strconv.AppendBool(e.b, x.Done)
	case *Closure:
		e.tag(TagClosure)
		e.str("repr", x.Repr)
	case *Stream:
		e.tag(TagStream)
		e.str("label", x.Label)
	case *Secret:
		e.tag(TagSecret)
		e.str("name", x.Name)
	case *Cmd:
		e.tag(TagCmd)
		e.str("repr", x.Repr)
	case *Ref:
		return e.ref(x, depth)
	default:
		return &WireError{Err: ErrUnknownTag, Detail: fmt.Sprintf("unsupported Go type %T", v)}
	}
	e.b = append(e.b, '}')
	return nil
}

// list writes items as a JSON array and closes the enclosing object.
func (e *encoder) list(items []Value, depth int) error {
	e.b = append(e.b, '[')
	for i, it := range items {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.value(it, depth+1); err != nil {
			return err
		}
	}
	e.b = append(e.b, ']', '}')
	return nil
}

// fields writes a JSON object of values and closes the enclosing object.
func (e *encoder) fields(keys []string, vals []Value, depth int) error {
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = AppendString(e.b, k)
		e.b = append(e.b, ':')
		if err := e.value(vals[i], depth+1); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}', '}')
	return nil
}

func (e *encoder) table(t *Table, depth int) error {
	if len(t.Cols) != len(t.Data) || t.N < 0 {
		return &WireError{Err: ErrColumnLength, Detail: "table shape inconsistent"}
	}
	e.tag(TagTable)
	e.key("cols")
	e.b = append(e.b, '{')
	for c, name := range t.Cols {
		col := t.Data[c]
		if len(col) != t.N {
			return &WireError{Path: ".cols." + name, Err: ErrColumnLength,
				Detail: fmt.Sprintf("column has %d cells, n is %d", len(col), t.N)}
		}
		if c > 0 {
			e.b = append(e.b, ',')
		}
		e.b = AppendString(e.b, name)
		e.b = append(e.b, ':', '[')
		for r, cell := range col {
			if r > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.value(cell, depth+1); err != nil {
				return err
			}
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
	e.int("n", int64(t.N))
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) outcome(o *Outcome, depth int) error {
	e.tag(TagOutcome)
	e.key("status")
	e.optInt(o.Status)
	e.key("ok")
	e.b = strconv.AppendBool(e.b, o.Ok)
	e.key("signal")
	if o.Signal == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = AppendString(e.b, *o.Signal)
	}
	e.key("out")
	if err := e.value(o.Out, depth+1); err != nil {
		return err
	}
	e.key("err")
	if err := e.value(o.Err, depth+1); err != nil {
		return err
	}
	e.int("dur_ns", o.DurNs)
	e.key("pid")
	e.optInt(o.Pid)
	e.str("cmd", o.Cmd)
	e.span(o.Span)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) ref(r *Ref, depth int) error {
	e.tag(TagRef)
	e.str("uri", r.URI)
	e.str("of", r.Of)
	e.int("n", r.N)
	if r.Cols != nil {
		e.key("cols")
		e.b = append(e.b, '{')
		for i, c := range r.Cols {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = AppendString(e.b, c.Name)
			e.b = append(e.b, ':')
			e.b = AppendString(e.b, c.Type)
		}
		e.b = append(e.b, '}')
	}
	if r.Preview != nil {
		e.key("preview")
		if err := e.value(r.Preview, depth+1); err != nil {
			return err
		}
	}
	if r.RenderHead != "" {
		e.str("render_head", r.RenderHead)
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) optInt(p *int64) {
	if p == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = strconv.AppendInt(e.b, *p, 10)
}

func (e *encoder) span(s *Span) {
	if s == nil {
		return
	}
	e.key("span")
	e.b = append(e.b, `{"start":`...)
	e.b = strconv.AppendInt(e.b, int64(s.Start), 10)
	e.b = append(e.b, `,"end":`...)
	e.b = strconv.AppendInt(e.b, int64(s.End), 10)
	e.b = append(e.b, '}')
}

// isNilPointer reports a typed nil pointer, which encodes as null.
func isNilPointer(v Value) bool {
	switch x := v.(type) {
	case *Path:
		return x == nil
	case *Record:
		return x == nil
	case *Table:
		return x == nil
	case *Outcome:
		return x == nil
	case *Error:
		return x == nil
	case *Glob:
		return x == nil
	case *Regex:
		return x == nil
	case *Range:
		return x == nil
	case *Task:
		return x == nil
	case *Closure:
		return x == nil
	case *Stream:
		return x == nil
	case *Secret:
		return x == nil
	case *Cmd:
		return x == nil
	case *Ref:
		return x == nil
	}
	return false
}

// AppendDateTime appends t as a quoted RFC 3339 string with its offset and
// any non-zero fraction. An offset with a seconds part, which RFC 3339
// cannot express, is written in UTC instead. The caller checks the year is
// in 0000-9999.
func AppendDateTime(b []byte, t time.Time) []byte {
	if _, off := t.Zone(); off%60 != 0 {
		t = t.UTC()
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// AppendBase64 appends data as a quoted standard base64 string.
func AppendBase64(b []byte, data []byte) []byte { return appendBase64(b, data) }

func appendBase64(b []byte, data []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

// AppendFloat appends f as a wire float: a JSON number in the form
// encoding/json uses, or "nan", "inf", "-inf" for non-finite values.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"nan"`...)
	case math.IsInf(f, 1):
		return append(b, `"inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-inf"`...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-07 -> e-7, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendTimeOfDay appends ns (in [0, 24h)) as HH:MM:SS with a fraction
// when it is not zero, trailing zeros trimmed.
func AppendTimeOfDay(b []byte, ns int64) []byte {
	sec := ns / int64(time.Second)
	frac := ns % int64(time.Second)
	b = append2(b, sec/3600)
	b = append(b, ':')
	b = append2(b, sec/60%60)
	b = append(b, ':')
	b = append2(b, sec%60)
	if frac != 0 {
		var digits [9]byte
		for i := 8; i >= 0; i-- {
			digits[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := 9
		for digits[n-1] == '0' {
			n--
		}
		b = append(b, '.')
		b = append(b, digits[:n]...)
	}
	return b
}

func append2(b []byte, n int64) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

const hexDigits = "0123456789abcdef"

// EncodedPrefix returns the longest prefix of s, cut on a rune boundary,
// whose JSON string encoding (without its quotes) takes at most n bytes,
// and whether that is less than s. Each byte is counted as the larger of
// what AppendString and encoding/json write for it: control characters
// take six bytes (\u001f) or two (\n, \r, \t, like '"' and '\\'), an
// invalid byte six (\ufffd), U+2028 and U+2029 six. It reads s only as far
// as the prefix reaches.
func EncodedPrefix(s string, n int) (prefix string, cut bool) {
	used := 0
	for i := 0; i < len(s); {
		c := s[i]
		w, size := 1, 1
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			w = 2
		case c < 0x20:
			w = 6
		case c >= utf8.RuneSelf:
			r, rs := utf8.DecodeRuneInString(s[i:])
			w, size = rs, rs
			if r == utf8.RuneError && rs == 1 || r == '\u2028' || r == '\u2029' {
				w = 6
			}
		}
		if used+w > n {
			return s[:i], true
		}
		used += w
		i += size
	}
	return s, false
}

func marshal(v Value) ([]byte, error) { return AppendWire(nil, v) }

// MarshalJSON implements json.Marshaler with the canonical encoding.
func (x Null) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x Bool) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x Int) MarshalJSON() ([]byte, error)      { return marshal(x) }
func (x Float) MarshalJSON() ([]byte, error)    { return marshal(x) }
func (x Str) MarshalJSON() ([]byte, error)      { return marshal(x) }
func (x Bytes) MarshalJSON() ([]byte, error)    { return marshal(x) }
func (x *Path) MarshalJSON() ([]byte, error)    { return marshal(x) }
func (x Size) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x Duration) MarshalJSON() ([]byte, error) { return marshal(x) }
func (x DateTime) MarshalJSON() ([]byte, error) { return marshal(x) }
func (x Time) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x List) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x *Record) MarshalJSON() ([]byte, error)  { return marshal(x) }
func (x *Table) MarshalJSON() ([]byte, error)   { return marshal(x) }
func (x *Outcome) MarshalJSON() ([]byte, error) { return marshal(x) }
func (x *Error) MarshalJSON() ([]byte, error)   { return marshal(x) }
func (x *Glob) MarshalJSON() ([]byte, error)    { return marshal(x) }
func (x *Regex) MarshalJSON() ([]byte, error)   { return marshal(x) }
func (x *Range) MarshalJSON() ([]byte, error)   { return marshal(x) }
func (x *Task) MarshalJSON() ([]byte, error)    { return marshal(x) }
func (x *Closure) MarshalJSON() ([]byte, error) { return marshal(x) }
func (x *Stream) MarshalJSON() ([]byte, error)  { return marshal(x) }
func (x *Secret) MarshalJSON() ([]byte, error)  { return marshal(x) }
func (x *Cmd) MarshalJSON() ([]byte, error)     { return marshal(x) }
func (x *Ref) MarshalJSON() ([]byte, error)     { return marshal(x) }
