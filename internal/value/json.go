package value

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/shoalgo/shoal/proto"
)

// JSONObject is an ordered JSON object, the form ToJSON gives records so
// that encoders keep key order. It marshals with encoding/json.
type JSONObject struct {
	Keys []string
	Vals []any
}

// MarshalJSON encodes the object compactly, keys in order.
func (o *JSONObject) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, o, "", 0)
}

// maxJSONRange bounds how many integers a range may expand to in JSON.
const maxJSONRange = 1 << 20

// ToJSON projects v onto plain Go data: nil, bool, int64, float64, string,
// []any and *JSONObject (records, in key order). Paths, globs, regexes,
// times render as text; datetimes in their zoned form
// (2026-07-09T14:00:00+00:00[UTC]); sizes as bytes and durations as
// nanoseconds; bytes as lossy text; tables as arrays of objects; outcomes
// as {status, ok, out, err}; errors as {code, msg}; secrets as a redacted
// "secret(name)"; NaN and infinities as null; other handles as their
// inline text. The projection is lossy by design.
func ToJSON(v Value) (any, error) {
	switch x := v.(type) {
	case nil, Null:
		return nil, nil
	case Bool:
		return bool(x), nil
	case Int:
		return int64(x), nil
	case Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return f, nil
	case Str:
		return string(x), nil
	case Bytes:
		return lossy(string(x)), nil
	case Path:
		return lossy(string(x)), nil
	case *Glob:
		return x.Pattern, nil
	case *Regex:
		return x.Source, nil
	case Size:
		return int64(x), nil
	case Duration:
		return int64(x), nil
	case DateTime:
		return FormatZoned(x), nil
	case Time:
		return FormatTime(x), nil
	case Range:
		n := RangeLen(x)
		if n > maxJSONRange {
			return nil, Errorf("arg_error", "range %s is too large to serialize", Inline(x))
		}
		out := make([]any, n)
		for i := range out {
			out[i] = x.Lo + int64(i)
		}
		return out, nil
	case *List:
		return toJSONSlice(x.Items)
	case *Record:
		return toJSONObject(x.keys, x.vals)
	case *Table:
		out := make([]any, x.N)
		vals := make([]Value, len(x.Cols))
		for r := range out {
			for c := range x.Cols {
				vals[c] = x.Data[c][r]
			}
			o, err := toJSONObject(x.Cols, vals)
			if err != nil {
				return nil, err
			}
			out[r] = o
		}
		return out, nil
	case *Outcome:
		var status any
		if x.Status != nil {
			status = int64(*x.Status)
		}
		return &JSONObject{
			Keys: []string{"status", "ok", "out", "err"},
			Vals: []any{status, x.Ok(), lossy(string(x.Stdout)), lossy(string(x.Stderr))},
		}, nil
	case *Error:
		return &JSONObject{Keys: []string{"code", "msg"}, Vals: []any{x.Code, x.Msg}}, nil
	case *Secret:
		return "secret(" + x.Name + ")", nil
	}
	return Inline(v), nil
}

func toJSONSlice(items []Value) ([]any, error) {
	out := make([]any, len(items))
	for i, it := range items {
		j, err := ToJSON(it)
		if err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}

func toJSONObject(keys []string, vals []Value) (*JSONObject, error) {
	o := &JSONObject{Keys: append([]string(nil), keys...), Vals: make([]any, len(vals))}
	for i, v := range vals {
		j, err := ToJSON(v)
		if err != nil {
			return nil, err
		}
		o.Vals[i] = j
	}
	return o, nil
}

// JSONText serializes v as JSON text: compact, or indented by two spaces
// when pretty. Non-ASCII text is written as UTF-8, and <, >, & are not
// escaped. Keys keep record order.
func JSONText(v Value, pretty bool) ([]byte, error) {
	j, err := ToJSON(v)
	if err != nil {
		return nil, err
	}
	indent := ""
	if pretty {
		indent = "  "
	}
	return appendJSON(nil, j, indent, 0)
}

func appendJSON(b []byte, x any, indent string, depth int) ([]byte, error) {
	newline := func(b []byte, d int) []byte {
		if indent == "" {
			return b
		}
		b = append(b, '\n')
		for i := 0; i < d; i++ {
			b = append(b, indent...)
		}
		return b
	}
	switch v := x.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		return appendJSONFloat(b, v), nil
	case string:
		return appendJSONString(b, v), nil
	case []any:
		if len(v) == 0 {
			return append(b, "[]"...), nil
		}
		b = append(b, '[')
		for i, it := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			var err error
			if b, err = appendJSON(b, it, indent, depth+1); err != nil {
				return nil, err
			}
		}
		b = newline(b, depth)
		return append(b, ']'), nil
	case *JSONObject:
		if len(v.Keys) == 0 {
			return append(b, "{}"...), nil
		}
		b = append(b, '{')
		for i, k := range v.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendJSONString(b, k)
			b = append(b, ':')
			if indent != "" {
				b = append(b, ' ')
			}
			var err error
			if b, err = appendJSON(b, v.Vals[i], indent, depth+1); err != nil {
				return nil, err
			}
		}
		b = newline(b, depth)
		return append(b, '}'), nil
	}
	// Foreign Go data: defer to encoding/json, then re-indent.
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	if indent == "" {
		return append(b, raw...), nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", indent); err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return append(b, bytes.ReplaceAll(buf.Bytes(), []byte("\n"), newline([]byte{}, depth))...), nil
}

func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	// The same shape encoding/json produces, so both encoders agree.
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString appends s as a JSON string; the wire package owns the
// one escaping routine both encoders share.
func appendJSONString(b []byte, s string) []byte { return proto.AppendString(b, s) }

// FromJSON converts decoded Go data into a value. It accepts what
// encoding/json produces (float64 or json.Number numbers, map[string]any
// objects with keys sorted), *JSONObject, Go integer types and Values.
// Integral numbers become Int; objects become records; a non-empty array
// of objects sharing one key set becomes a table, any other array a list.
// Unknown Go types become their fmt text.
func FromJSON(x any) Value {
	switch v := x.(type) {
	case nil:
		return Nil
	case Value:
		return v
	case bool:
		return Bool(v)
	case string:
		return Str(v)
	case float64:
		if v == math.Trunc(v) && v >= -(1<<63) && v < 1<<63 && !math.IsInf(v, 0) {
			return Int(int64(v))
		}
		return Float(v)
	case float32:
		return FromJSON(float64(v))
	case json.Number:
		return numberValue(string(v))
	case int:
		return Int(v)
	case int64:
		return Int(v)
	case int32:
		return Int(v)
	case uint64:
		if v > math.MaxInt64 {
			return Float(float64(v))
		}
		return Int(int64(v))
	case []any:
		items := make([]Value, len(v))
		for i, it := range v {
			items[i] = FromJSON(it)
		}
		return listOrTable(items)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals := make([]Value, len(keys))
		for i, k := range keys {
			vals[i] = FromJSON(v[k])
		}
		return &Record{keys: keys, vals: vals}
	case *JSONObject:
		vals := make([]Value, len(v.Vals))
		for i, it := range v.Vals {
			vals[i] = FromJSON(it)
		}
		return NewRecord(append([]string(nil), v.Keys...), vals)
	}
	return Str(fmt.Sprint(x))
}

// numberValue converts JSON number text: Int when it has no fraction or
// exponent and fits, else Float.
func numberValue(s string) Value {
	if s == "-0" {
		return Float(math.Copysign(0, -1)) // keep the sign, as a float
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(i)
	}
	f, _ := strconv.ParseFloat(s, 64) // out-of-range gives ±Inf, kept
	return Float(f)
}

// listOrTable returns a table when items are all records with the same key
// set (at least one), otherwise a list.
func listOrTable(items []Value) Value {
	if len(items) == 0 {
		return NewList(items)
	}
	first, ok := items[0].(*Record)
	if !ok {
		return NewList(items)
	}
	cols := first.keys
	for _, it := range items[1:] {
		r, ok := it.(*Record)
		if !ok || len(r.keys) != len(cols) {
			return NewList(items)
		}
		for _, k := range r.keys {
			if recKeyIndex(first, k) < 0 {
				return NewList(items)
			}
		}
	}
	data := make([][]Value, len(cols))
	for c := range data {
		data[c] = make([]Value, len(items))
	}
	for ri, it := range items {
		r := it.(*Record)
		for i, k := range r.keys {
			data[recKeyIndex(first, k)][ri] = r.vals[i]
		}
	}
	return &Table{Cols: cols, Data: data, N: len(items)}
}

func recKeyIndex(r *Record, k string) int {
	for i, kk := range r.keys {
		if kk == k {
			return i
		}
	}
	return -1
}

// ParseJSON decodes one JSON document into a value, keeping object key
// order (see FromJSON for the mapping). Malformed input, including
// trailing data, is an arg_error.
func ParseJSON(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, Errorf("arg_error", "invalid JSON: %v", err)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return Nil, nil
	case bool:
		return Bool(t), nil
	case string:
		return Str(t), nil
	case json.Number:
		return numberValue(string(t)), nil
	case json.Delim:
		switch t {
		case '[':
			items := []Value{}
			for dec.More() {
				it, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				items = append(items, it)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return listOrTable(items), nil
		case '{':
			r := &Record{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %T, not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				r.put(k, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return r, nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
