package namespaces

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/shoalgo/shoal/internal/value"
)

func tomlNamespace() *value.Namespace {
	return newNamespace("toml", nil, map[string]func(value.Env, value.Args) (value.Value, error){
		"parse":     tomlParse,
		"stringify": tomlStringify,
	})
}

// tomlParse implements toml.parse(text: str). Tables keep the order their
// keys first appear in the document. Offset date-times become datetime
// values, local times time values, local dates and date-times text.
func tomlParse(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "toml.parse"
	text, err := textArg(fn, a)
	if err != nil {
		return nil, err
	}
	depth, work := tomlScan(text)
	if depth > maxDepth {
		return nil, tooDeep(fn, "TOML")
	}
	if work > max(tomlKeyWork*len(text), tomlKeyWorkFloor) {
		return nil, value.Errorf(value.CodeTooLarge, "%s: the TOML document's dotted keys and headers are too long to decode (%d key levels squared for %d bytes)", fn, work, len(text)).
			WithHint("use shorter keys, or nest tables instead of repeating long dotted paths")
	}
	var m map[string]any
	if err := toml.Unmarshal([]byte(text), &m); err != nil {
		return nil, parseFailure(fn, "TOML", tomlDecodeError(err))
	}
	order := tomlOrder(text)
	d, err := tomlData(m, tomlRoot, order, 0)
	if err != nil {
		return nil, parseFailure(fn, "TOML", err)
	}
	v, err := fromData(d)
	if err != nil {
		return nil, parseFailure(fn, "TOML", err)
	}
	return v, nil
}

// tomlDecodeError words a decoder's error as "line L, column C: what".
func tomlDecodeError(err error) error {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return err
	}
	line, col := de.Position()
	return fmt.Errorf("line %d, column %d: %s", line, col, strings.TrimPrefix(de.Error(), "toml: "))
}

// tomlData converts a decoded TOML value under the path at position path
// (tomlOrder's) and nesting depth.
func tomlData(x any, path int, order map[tomlPath]int, depth int) (any, error) {
	if depth > maxDepth {
		return nil, value.TooDeep("the TOML document")
	}
	switch t := x.(type) {
	case map[string]any:
		type keyPos struct {
			k   string
			pos int
		}
		keys := make([]keyPos, 0, len(t))
		for k := range t {
			pos, ok := order[tomlPath{path, k}]
			if !ok {
				pos = math.MaxInt
			}
			keys = append(keys, keyPos{k, pos})
		}
		slices.SortFunc(keys, func(a, b keyPos) int {
			if a.pos != b.pos {
				if a.pos < b.pos {
					return -1
				}
				return 1
			}
			return strings.Compare(a.k, b.k)
		})
		o := &value.JSONObject{Keys: make([]string, len(keys)), Vals: make([]any, len(keys))}
		for i, kp := range keys {
			o.Keys[i] = kp.k
			child := kp.pos
			if child == math.MaxInt {
				child = tomlUnknown
			}
			var err error
			if o.Vals[i], err = tomlData(t[kp.k], child, order, depth+1); err != nil {
				return nil, err
			}
		}
		return o, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var err error
			if out[i], err = tomlData(e, path, order, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case toml.LocalDateTime:
		return t.AsTime(time.UTC).Format("2006-01-02T15:04:05.999999999"), nil
	case toml.LocalDate:
		return t.String(), nil
	case toml.LocalTime:
		return value.Time(int64(t.Hour)*int64(time.Hour) + int64(t.Minute)*int64(time.Minute) +
			int64(t.Second)*int64(time.Second) + int64(t.Nanosecond)), nil
	case time.Time:
		return value.DateTime{T: t}, nil
	case float64:
		return value.Float(t), nil // stays a float even when integral
	}
	return x, nil // int64, string, bool
}

// tomlStringify implements toml.stringify(record).
func tomlStringify(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "toml.stringify"
	if err := arity(fn, a, 1, 1); err != nil {
		return nil, err
	}
	if _, ok := a.Pos[0].(*value.Record); !ok {
		return nil, value.Errorf(value.CodeArg, "%s: TOML needs a record at the top level, got %s",
			fn, value.TypeName(a.Pos[0])).WithHint("wrap the value in a record: {items: ...}")
	}
	d, err := toData(a.Pos[0])
	if err != nil {
		return nil, err
	}
	var e tomlEncoder
	if err := e.table(nil, d.(*value.JSONObject)); err != nil {
		if b, ok := passBounds(err); ok {
			return nil, b
		}
		return nil, value.Errorf(value.CodeArg, "%s: %v", fn, err)
	}
	return value.Str(e.buf.String()), nil
}

// tomlEncoder writes TOML documents from the intermediate tree.
type tomlEncoder struct {
	buf strings.Builder
}

type tomlError string

func (e tomlError) Error() string { return string(e) }

// isTableArray reports whether d is written as [[array-of-tables]].
func isTableArray(d any) bool {
	xs, ok := d.([]any)
	if !ok || len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if _, ok := x.(*value.JSONObject); !ok {
			return false
		}
	}
	return true
}

// table writes the body of the table at path: plain keys first (TOML
// requires them before any sub-table header), then sub-tables, then arrays
// of tables, each group in record order.
func (e *tomlEncoder) table(path []string, o *value.JSONObject) error {
	if err := e.check(); err != nil {
		return err
	}
	for i, k := range o.Keys {
		v := o.Vals[i]
		if _, sub := v.(*value.JSONObject); sub || isTableArray(v) {
			continue
		}
		e.buf.WriteString(tomlKey(k))
		e.buf.WriteString(" = ")
		if err := e.inline(v, append(path, k)); err != nil {
			return err
		}
		e.buf.WriteByte('\n')
	}
	for i, k := range o.Keys {
		sub, ok := o.Vals[i].(*value.JSONObject)
		if !ok {
			continue
		}
		p := append(slices.Clone(path), k)
		e.header("[", p, "]")
		if err := e.table(p, sub); err != nil {
			return err
		}
	}
	for i, k := range o.Keys {
		if !isTableArray(o.Vals[i]) {
			continue
		}
		p := append(slices.Clone(path), k)
		for _, el := range o.Vals[i].([]any) {
			e.header("[[", p, "]]")
			if err := e.table(p, el.(*value.JSONObject)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *tomlEncoder) header(open string, path []string, close string) {
	if e.buf.Len() > 0 {
		e.buf.WriteByte('\n')
	}
	e.buf.WriteString(open)
	for i, k := range path {
		if i > 0 {
			e.buf.WriteByte('.')
		}
		e.buf.WriteString(tomlKey(k))
	}
	e.buf.WriteString(close)
	e.buf.WriteByte('\n')
}

// check fails once the text passes MaxEncodedBytes.
func (e *tomlEncoder) check() error {
	if e.buf.Len() > value.MaxEncodedBytes {
		return value.Errorf(value.CodeTooLarge, "the TOML text would pass %s", value.FormatSize(value.MaxEncodedBytes)).
			WithHint("encode a part of the value at a time")
	}
	return nil
}

// inline writes d as a TOML inline value.
func (e *tomlEncoder) inline(d any, path []string) error {
	if err := e.check(); err != nil {
		return err
	}
	switch x := d.(type) {
	case nil:
		return tomlError("TOML has no null (at " + strings.Join(path, ".") + ")")
	case bool:
		e.buf.WriteString(strconv.FormatBool(x))
	case int64:
		e.buf.WriteString(strconv.FormatInt(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			e.buf.WriteString("nan")
		case math.IsInf(x, 1):
			e.buf.WriteString("inf")
		case math.IsInf(x, -1):
			e.buf.WriteString("-inf")
		default:
			e.buf.WriteString(floatText(x))
		}
	case string:
		e.buf.WriteString(tomlString(x))
	case []any:
		e.buf.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				e.buf.WriteString(", ")
			}
			if err := e.inline(el, path); err != nil {
				return err
			}
		}
		e.buf.WriteByte(']')
	case *value.JSONObject:
		e.buf.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				e.buf.WriteString(",")
			}
			e.buf.WriteByte(' ')
			e.buf.WriteString(tomlKey(k))
			e.buf.WriteString(" = ")
			if err := e.inline(x.Vals[i], append(path, k)); err != nil {
				return err
			}
		}
		if len(x.Keys) > 0 {
			e.buf.WriteByte(' ')
		}
		e.buf.WriteByte('}')
	default:
		return tomlError(fmt.Sprintf("cannot write %T in TOML", d))
	}
	return nil
}

// tomlKey writes k bare when TOML allows it, quoted otherwise.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return tomlString(k)
		}
	}
	return k
}

// tomlString quotes s as a TOML basic string. JSON's escapes are all valid
// TOML; TOML also forbids a raw DEL.
func tomlString(s string) string {
	q := jsonScalar(value.Str(s))
	if strings.IndexByte(q, 0x7f) >= 0 {
		q = strings.ReplaceAll(q, "\x7f", `\u007f`)
	}
	return q
}
