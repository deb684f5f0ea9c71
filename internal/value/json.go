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

// MaxDataNodes bounds the nodes ToJSON may produce for one value (every
// scalar, list and record counts one). A value whose parts are shared can
// stand for far more nodes than it holds; its projection fails with
// too_large here instead of exhausting memory.
const MaxDataNodes = 1 << 20

// ToJSON projects v onto plain Go data: nil, bool, int64, float64, string,
// []any and *JSONObject (records, in key order). Paths, globs, regexes,
// times render as text; datetimes in their zoned form
// (2026-07-09T14:00:00+00:00[UTC]); sizes as bytes and durations as
// nanoseconds; bytes as lossy text; tables as arrays of objects; outcomes
// as {status, ok, out, err}; errors as {code, msg}; secrets as a redacted
// "secret(name)"; NaN and infinities as null; other handles as their
// inline text. The projection is lossy by design. A value nested deeper
// than MaxDepth fails with too_deep, one of more than MaxDataNodes nodes
// with too_large.
func ToJSON(v Value) (any, error) {
	p := projector{nodes: MaxDataNodes}
	return p.value(v, 0)
}

// projector builds ToJSON's tree within a node budget.
type projector struct{ nodes int }

func (p *projector) value(v Value, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, TooDeep("the value")
	}
	if p.nodes--; p.nodes < 0 {
		return nil, Errorf(CodeTooLarge, "the value stands for more than %d data nodes", MaxDataNodes).
			WithHint("encode a part of the value at a time")
	}
	switch x := v.(type) {
	case Range:
		n := RangeLen(x)
		if n > maxJSONRange {
			return nil, Errorf(CodeArg, "range %s is too large to serialize", Inline(x))
		}
		if p.nodes -= int(n); p.nodes < 0 {
			return nil, Errorf(CodeTooLarge, "the value stands for more than %d data nodes", MaxDataNodes)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = x.Lo + int64(i)
		}
		return out, nil
	case *List:
		return p.slice(x.Items, depth)
	case *Record:
		return p.object(x.keys, x.vals, depth)
	case *Table:
		out := make([]any, x.N)
		vals := make([]Value, len(x.Cols))
		for r := range out {
			for c := range x.Cols {
				vals[c] = x.Data[c][r]
			}
			o, err := p.object(x.Cols, vals, depth+1)
			if err != nil {
				return nil, err
			}
			out[r] = o
		}
		return out, nil
	}
	return jsonScalar(v), nil
}

// jsonScalar is ToJSON of a value that holds no other values.
func jsonScalar(v Value) any {
	switch x := v.(type) {
	case nil, Null:
		return nil
	case Bool:
		return bool(x)
	case Int:
		return int64(x)
	case Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case Str:
		return string(x)
	case Bytes:
		return lossy(string(x))
	case Path:
		return lossy(string(x))
	case *Glob:
		return x.Pattern
	case *Regex:
		return x.Source
	case Size:
		return int64(x)
	case Duration:
		return int64(x)
	case DateTime:
		return FormatZoned(x)
	case Time:
		return FormatTime(x)
	case *Outcome:
		var status any
		if x.Status != nil {
			status = int64(*x.Status)
		}
		return &JSONObject{
			Keys: []string{"status", "ok", "out", "err"},
			Vals: []any{status, x.Ok(), lossy(string(x.Stdout)), lossy(string(x.Stderr))},
		}
	case *Error:
		return &JSONObject{Keys: []string{"code", "msg"}, Vals: []any{x.Code, x.Msg}}
	case *Secret:
		return "secret(" + x.Name + ")"
	}
	return Inline(v)
}

func (p *projector) slice(items []Value, depth int) ([]any, error) {
	out := make([]any, len(items))
	for i, it := range items {
		j, err := p.value(it, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}

func (p *projector) object(keys []string, vals []Value, depth int) (*JSONObject, error) {
	o := &JSONObject{Keys: append([]string(nil), keys...), Vals: make([]any, len(vals))}
	for i, v := range vals {
		j, err := p.value(v, depth+1)
		if err != nil {
			return nil, err
		}
		o.Vals[i] = j
	}
	return o, nil
}

// JSONText serializes v as JSON text: compact, or indented by two spaces
// when pretty. Non-ASCII text is written as UTF-8, and <, >, & are not
// escaped. Keys keep record order. It encodes as it walks, in ToJSON's
// projection: a value nested deeper than MaxDepth fails with too_deep, a
// text longer than MaxEncodedBytes with too_large.
func JSONText(v Value, pretty bool) ([]byte, error) {
	e := jsonWriter{}
	if pretty {
		e.indent = "  "
	}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.b, nil
}

// jsonWriter writes ToJSON's projection of a value directly as JSON text.
type jsonWriter struct {
	b      []byte
	indent string
}

func (e *jsonWriter) newline(depth int) {
	if e.indent == "" {
		return
	}
	e.b = append(e.b, '\n')
	for i := 0; i < depth; i++ {
		e.b = append(e.b, e.indent...)
	}
}

func (e *jsonWriter) value(v Value, depth int) error {
	if depth > MaxDepth {
		return TooDeep("the value")
	}
	if len(e.b) > MaxEncodedBytes {
		return tooLargeEncoding("the JSON text")
	}
	switch x := v.(type) {
	case Range:
		n := RangeLen(x)
		if n > maxJSONRange {
			return Errorf(CodeArg, "range %s is too large to serialize", Inline(x))
		}
		if n == 0 {
			e.b = append(e.b, "[]"...)
			return nil
		}
		e.b = append(e.b, '[')
		for i := int64(0); i < n; i++ {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(depth + 1)
			e.b = strconv.AppendInt(e.b, x.Lo+i, 10)
		}
		e.newline(depth)
		e.b = append(e.b, ']')
		return nil
	case *List:
		if len(x.Items) == 0 {
			e.b = append(e.b, "[]"...)
			return nil
		}
		e.b = append(e.b, '[')
		for i, it := range x.Items {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(depth + 1)
			if err := e.value(it, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b = append(e.b, ']')
		return nil
	case *Record:
		return e.object(x.keys, x.vals, depth)
	case *Table:
		if x.N == 0 {
			e.b = append(e.b, "[]"...)
			return nil
		}
		vals := make([]Value, len(x.Cols))
		e.b = append(e.b, '[')
		for r := 0; r < x.N; r++ {
			if r > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(depth + 1)
			for c := range x.Cols {
				vals[c] = x.Data[c][r]
			}
			if err := e.object(x.Cols, vals, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b = append(e.b, ']')
		return nil
	}
	var err error
	e.b, err = appendJSON(e.b, jsonScalar(v), e.indent, depth)
	return err
}

func (e *jsonWriter) object(keys []string, vals []Value, depth int) error {
	if len(keys) == 0 {
		e.b = append(e.b, "{}"...)
		return nil
	}
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline(depth + 1)
		e.b = appendJSONString(e.b, k)
		e.b = append(e.b, ':')
		if e.indent != "" {
			e.b = append(e.b, ' ')
		}
		if err := e.value(vals[i], depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.b = append(e.b, '}')
	return nil
}

// appendJSON appends the JSON text of decoded or projected Go data x (as
// ToJSON and the document decoders produce) at nesting depth.
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
	if depth > MaxDepth {
		return nil, TooDeep("the data")
	}
	if len(b) > MaxEncodedBytes {
		return nil, tooLargeEncoding("the JSON text")
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
// Unknown Go types become their fmt text. Data nested deeper than
// MaxDepth fails with too_deep.
func FromJSON(x any) (Value, error) { return fromJSON(x, 0) }

func fromJSON(x any, depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, TooDeep("the document")
	}
	switch v := x.(type) {
	case nil:
		return Nil, nil
	case Value:
		return v, nil
	case bool:
		return Bool(v), nil
	case string:
		return Str(v), nil
	case float64:
		if v == math.Trunc(v) && v >= -(1<<63) && v < 1<<63 && !math.IsInf(v, 0) {
			return Int(int64(v)), nil
		}
		return Float(v), nil
	case float32:
		return fromJSON(float64(v), depth)
	case json.Number:
		return numberValue(string(v)), nil
	case int:
		return Int(v), nil
	case int64:
		return Int(v), nil
	case int32:
		return Int(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return Float(float64(v)), nil
		}
		return Int(int64(v)), nil
	case []any:
		items := make([]Value, len(v))
		for i, it := range v {
			var err error
			if items[i], err = fromJSON(it, depth+1); err != nil {
				return nil, err
			}
		}
		return listOrTable(items), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals := make([]Value, len(keys))
		for i, k := range keys {
			var err error
			if vals[i], err = fromJSON(v[k], depth+1); err != nil {
				return nil, err
			}
		}
		return &Record{keys: keys, vals: vals}, nil
	case *JSONObject:
		vals := make([]Value, len(v.Vals))
		for i, it := range v.Vals {
			var err error
			if vals[i], err = fromJSON(it, depth+1); err != nil {
				return nil, err
			}
		}
		return NewRecord(append([]string(nil), v.Keys...), vals), nil
	}
	return Str(fmt.Sprint(x)), nil
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
	col := func(k string) int { return recKeyIndex(first, k) }
	if len(cols) > smallRecord {
		at := make(map[string]int, len(cols))
		for i, k := range cols {
			at[k] = i
		}
		col = func(k string) int {
			if i, ok := at[k]; ok {
				return i
			}
			return -1
		}
	}
	for _, it := range items[1:] {
		r, ok := it.(*Record)
		if !ok || len(r.keys) != len(cols) {
			return NewList(items)
		}
		for i, k := range r.keys {
			if i < len(cols) && cols[i] == k {
				continue // the same position: the common case
			}
			if col(k) < 0 {
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
			c := i
			if cols[i] != k {
				c = col(k)
			}
			data[c][ri] = r.vals[i]
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
// trailing data, is an arg_error; a document nested deeper than MaxDepth
// is too_deep.
func ParseJSON(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		var ve *Error
		if errors.As(err, &ve) {
			return nil, ve
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, Errorf(CodeArg, "invalid JSON: %v", err)
	}
	return v, nil
}

// decodeValue reads one value from dec's tokens; a value deeper than
// MaxDepth fails with too_deep before it is read.
func decodeValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, TooDeep("the JSON document")
	}
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
				it, err := decodeValue(dec, depth+1)
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
			var keys []string
			var vals []Value
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %T, not a string", kt)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				keys, vals = append(keys, k), append(vals, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return NewRecord(keys, vals), nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
