package value

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/proto"
)

// This file bridges runtime values and the kernel's `$`-tagged wire values
// (package proto). Encoding writes JSON bytes directly, without building a
// proto.Value tree, so large tables encode without per-cell allocation;
// decoding goes through proto.DecodeWire, which checks the shape strictly.
//
// What the wire keeps and drops:
//   - tables are columnar; paths keep their exact bytes (base64 "raw" when
//     not valid UTF-8); datetimes are RFC 3339 with their offset;
//   - secrets carry only their name: FromWire yields a secret with no
//     material;
//   - closures, builtins, tasks, streams and commands become descriptors;
//     FromWire yields an inert *Handle;
//   - an outcome keeps status, signal, output, stderr, duration, pid and
//     command, but not argv;
//   - an error keeps code, message, span, hint and stderr, but not status;
//   - a namespace encodes as a record of its members sorted by name.

// ErrElided is returned by FromWire for an elided `ref`, which is a handle
// to fetch with value.get rather than a value.
var ErrElided = errors.New("value: an elided wire ref is not a value")

// WireTask may be implemented by task handles defined outside this package
// to give their wire descriptor; without it a task's id is its inline
// rendering and it is reported not done.
type WireTask interface {
	WireTask() (id string, done bool)
}

// Handle is the inert stand-in FromWire builds for a wire closure, task,
// stream or command: it keeps the descriptor but cannot be called,
// awaited or read.
type Handle struct {
	K    Kind   // KClosure, KTask, KStream or KCommand
	Repr string // closure/command text, task id, stream label
	Done bool   // tasks only
}

// Kind implements Value.
func (h *Handle) Kind() Kind { return h.K }

// InlineString implements Inliner.
func (h *Handle) InlineString() string { return h.Repr }

// WireTask implements WireTask.
func (h *Handle) WireTask() (string, bool) { return h.Repr, h.Done }

// ToWire encodes v as one wire value.
func ToWire(v Value) ([]byte, error) { return AppendWire(make([]byte, 0, 64), v) }

// AppendWire appends the wire encoding of v to dst. It fails on values the
// wire cannot carry: nesting deeper than proto.MaxWireDepth (too_deep), an
// encoding longer than a frame (too_large), a datetime outside years
// 0000-9999, a negative size, or an unknown Value type. A too_deep or
// too_large failure wraps the *Error, for errors.As.
func AppendWire(dst []byte, v Value) ([]byte, error) {
	b, err := appendWire(dst, v, 0)
	if err != nil {
		return dst, fmt.Errorf("encode wire value: %w", err)
	}
	return b, nil
}

func wireTag(b []byte, tag proto.Tag) []byte {
	b = append(b, `{"$":"`...)
	b = append(b, tag...)
	return append(b, '"')
}

func wireKey(b []byte, k string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

func wireStr(b []byte, tag proto.Tag, key, s string) []byte {
	b = wireTag(b, tag)
	b = wireKey(b, key)
	b = proto.AppendString(b, s)
	return append(b, '}')
}

func wireInt(b []byte, tag proto.Tag, n int64) []byte {
	b = wireTag(b, tag)
	b = append(b, `,"v":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '}')
}

// wireText appends text as str when it is valid UTF-8, else as bytes.
func wireText(b []byte, s []byte) []byte {
	if utf8.Valid(s) {
		b = wireTag(b, proto.TagStr)
		b = append(b, `,"v":`...)
		b = proto.AppendString(b, string(s))
	} else {
		b = wireTag(b, proto.TagBytes)
		b = append(b, `,"v":`...)
		b = proto.AppendBase64(b, s)
	}
	return append(b, '}')
}

func appendWire(b []byte, v Value, depth int) ([]byte, error) {
	if depth > proto.MaxWireDepth {
		return b, TooDeep("the value")
	}
	if len(b) > proto.MaxFrame {
		return b, Errorf(CodeTooLarge, "the value's wire encoding would pass the %s a frame may hold", FormatSize(proto.MaxFrame)).
			WithHint("fetch a part of the value at a time")
	}
	switch x := v.(type) {
	case nil, Null:
		return append(b, `{"$":"null"}`...), nil
	case Bool:
		if x {
			return append(b, `{"$":"bool","v":true}`...), nil
		}
		return append(b, `{"$":"bool","v":false}`...), nil
	case Int:
		return wireInt(b, proto.TagInt, int64(x)), nil
	case Float:
		b = append(b, `{"$":"float","v":`...)
		b = proto.AppendFloat(b, float64(x))
		return append(b, '}'), nil
	case Str:
		return wireStr(b, proto.TagStr, "v", string(x)), nil
	case Bytes:
		b = append(b, `{"$":"bytes","v":`...)
		b = proto.AppendBase64(b, []byte(x))
		return append(b, '}'), nil
	case Path:
		b = append(b, `{"$":"path","v":`...)
		s := string(x)
		b = proto.AppendString(b, s) // invalid bytes become U+FFFD
		if !utf8.ValidString(s) {
			b = append(b, `,"raw":`...)
			b = proto.AppendBase64(b, []byte(s))
		}
		return append(b, '}'), nil
	case Size:
		if x < 0 {
			return b, fmt.Errorf("negative size %d", int64(x))
		}
		return wireInt(b, proto.TagSize, int64(x)), nil
	case Duration:
		return wireInt(b, proto.TagDuration, int64(x)), nil
	case DateTime:
		if y := x.T.Year(); y < 0 || y > 9999 {
			return b, fmt.Errorf("datetime year %d outside 0000-9999", y)
		}
		b = append(b, `{"$":"datetime","v":`...)
		b = proto.AppendDateTime(b, x.T)
		return append(b, '}'), nil
	case Time:
		day := int64(24 * time.Hour)
		ns := int64(x) % day
		if ns < 0 {
			ns += day
		}
		b = append(b, `{"$":"time","v":"`...)
		b = proto.AppendTimeOfDay(b, ns)
		return append(b, '"', '}'), nil
	case *Glob:
		b = wireTag(b, proto.TagGlob)
		b = wireKey(b, "pattern")
		b = proto.AppendString(b, x.Pattern)
		if x.Hidden {
			b = append(b, `,"hidden":true`...)
		}
		return append(b, '}'), nil
	case *Regex:
		return wireStr(b, proto.TagRegex, "src", x.Source), nil
	case Range:
		b = append(b, `{"$":"range","start":`...)
		b = strconv.AppendInt(b, x.Lo, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, x.Hi, 10)
		b = append(b, `,"inclusive":`...)
		b = strconv.AppendBool(b, x.Inclusive)
		return append(b, '}'), nil
	case *List:
		b = append(b, `{"$":"list","v":`...)
		b, err := wireList(b, x.Items, depth)
		return append(b, '}'), err
	case *Record:
		b = append(b, `{"$":"record","v":`...)
		b, err := wireFields(b, x.keys, x.vals, depth)
		return append(b, '}'), err
	case *Table:
		return wireTable(b, x, depth)
	case *Outcome:
		return wireOutcome(b, x, depth)
	case *Error:
		return wireError(b, x, depth)
	case *Secret:
		return wireStr(b, proto.TagSecret, "name", x.Name), nil
	case *Namespace:
		names := make([]string, 0, len(x.Members))
		for n := range x.Members {
			names = append(names, n)
		}
		sort.Strings(names)
		vals := make([]Value, len(names))
		for i, n := range names {
			vals[i] = x.Members[n]
		}
		b = append(b, `{"$":"record","v":`...)
		b, err := wireFields(b, names, vals, depth)
		return append(b, '}'), err
	}
	switch v.Kind() {
	case KClosure:
		return wireStr(b, proto.TagClosure, "repr", describe(v)), nil
	case KCommand:
		return wireStr(b, proto.TagCmd, "repr", describe(v)), nil
	case KStream:
		return wireStr(b, proto.TagStream, "label", describe(v)), nil
	case KTask:
		id, done := describe(v), false
		if t, ok := v.(WireTask); ok {
			id, done = t.WireTask()
		}
		b = wireTag(b, proto.TagTask)
		b = wireKey(b, "id")
		b = proto.AppendString(b, id)
		b = append(b, `,"done":`...)
		b = strconv.AppendBool(b, done)
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("no wire form for %s value of type %T", TypeName(v), v)
}

// describe is the display text of a handle value.
func describe(v Value) string {
	switch x := v.(type) {
	case Inliner:
		return x.InlineString()
	case fmt.Stringer:
		return x.String()
	}
	return Inline(v)
}

func wireList(b []byte, items []Value, depth int) ([]byte, error) {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendWire(b, it, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func wireFields(b []byte, keys []string, vals []Value, depth int) ([]byte, error) {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = proto.AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendWire(b, vals[i], depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func wireTable(b []byte, t *Table, depth int) ([]byte, error) {
	if len(t.Data) != len(t.Cols) {
		return b, fmt.Errorf("table has %d columns but %d data columns", len(t.Cols), len(t.Data))
	}
	b = append(b, `{"$":"table","cols":{`...)
	for c, name := range t.Cols {
		col := t.Data[c]
		if len(col) != t.N {
			return b, fmt.Errorf("table column %q has %d cells, want %d", name, len(col), t.N)
		}
		if c > 0 {
			b = append(b, ',')
		}
		b = proto.AppendString(b, name)
		var err error
		b = append(b, ':')
		if b, err = wireList(b, col, depth); err != nil {
			return b, err
		}
	}
	b = append(b, `},"n":`...)
	b = strconv.AppendInt(b, int64(t.N), 10)
	return append(b, '}'), nil
}

func wireOutcome(b []byte, o *Outcome, depth int) ([]byte, error) {
	b = append(b, `{"$":"outcome","status":`...)
	if o.Status != nil {
		b = strconv.AppendInt(b, int64(*o.Status), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, o.Ok())
	b = append(b, `,"signal":`...)
	if o.Signal != "" {
		b = proto.AppendString(b, o.Signal)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"out":`...)
	if o.Out != nil {
		var err error
		if b, err = appendWire(b, o.Out, depth+1); err != nil {
			return b, err
		}
	} else {
		b = wireText(b, o.Stdout)
	}
	b = append(b, `,"err":`...)
	b = wireText(b, o.Stderr)
	b = append(b, `,"dur_ns":`...)
	b = strconv.AppendInt(b, int64(o.Dur), 10)
	b = append(b, `,"pid":`...)
	if o.Pid != 0 {
		b = strconv.AppendInt(b, int64(o.Pid), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"cmd":`...)
	b = proto.AppendString(b, o.Cmd)
	return append(b, '}'), nil
}

func wireError(b []byte, e *Error, depth int) ([]byte, error) {
	b = append(b, `{"$":"error","code":`...)
	b = proto.AppendString(b, e.Code)
	b = append(b, `,"msg":`...)
	b = proto.AppendString(b, e.Msg)
	if e.HasPos {
		b = append(b, `,"span":{"start":`...)
		b = strconv.AppendInt(b, int64(e.Span.Start), 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, int64(e.Span.End), 10)
		b = append(b, '}')
	}
	if e.Hint != "" {
		b = append(b, `,"hint":`...)
		b = proto.AppendString(b, e.Hint)
	}
	if e.Stderr != nil {
		b = append(b, `,"stderr":`...)
		var err error
		if b, err = appendWire(b, e.Stderr, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// FromWire decodes one wire value, checking its shape strictly (see
// proto.DecodeWire), and converts it to a runtime value.
func FromWire(data []byte) (Value, error) {
	w, err := proto.DecodeWire(data)
	if err != nil {
		return nil, fmt.Errorf("decode wire value: %w", err)
	}
	return FromProto(w)
}

// FromProto converts a decoded wire value to a runtime value. An elided
// ref yields ErrElided; a regex that does not compile is an error; a value
// nested deeper than MaxDepth (which DecodeWire never yields, but a value
// built in Go might be) is too_deep.
func FromProto(w proto.Value) (Value, error) { return fromProto(w, 0) }

func fromProto(w proto.Value, depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, TooDeep("the wire value")
	}
	switch x := w.(type) {
	case nil, proto.Null:
		return Nil, nil
	case proto.Bool:
		return Bool(x), nil
	case proto.Int:
		return Int(x), nil
	case proto.Float:
		return Float(x), nil
	case proto.Str:
		return Str(x), nil
	case proto.Bytes:
		return Bytes(x), nil
	case *proto.Path:
		if x.Raw != nil {
			return Path(x.Raw), nil
		}
		return Path(x.V), nil
	case proto.Size:
		return Size(x), nil
	case proto.Duration:
		return Duration(x), nil
	case proto.DateTime:
		return DateTime{T: x.T}, nil
	case proto.Time:
		return Time(x), nil
	case proto.List:
		items := make([]Value, len(x))
		for i, it := range x {
			v, err := fromProto(it, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return NewList(items), nil
	case *proto.Record:
		vals := make([]Value, len(x.Vals))
		for i, it := range x.Vals {
			v, err := fromProto(it, depth+1)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return NewRecord(append([]string(nil), x.Keys...), vals), nil
	case *proto.Table:
		return tableFromProto(x, depth)
	case *proto.Outcome:
		return outcomeFromProto(x, depth)
	case *proto.Error:
		e := &Error{Code: x.Code, Msg: x.Msg, Hint: x.Hint}
		if x.Span != nil && int(int32(x.Span.Start)) == x.Span.Start && int(int32(x.Span.End)) == x.Span.End {
			e.Span.Start, e.Span.End, e.HasPos = int32(x.Span.Start), int32(x.Span.End), true
		}
		if x.Stderr != nil {
			v, err := fromProto(x.Stderr, depth+1)
			if err != nil {
				return nil, err
			}
			e.Stderr = v
		}
		return e, nil
	case *proto.Glob:
		return &Glob{Pattern: x.Pattern, Hidden: x.Hidden}, nil
	case *proto.Regex:
		re, err := regexp.Compile(x.Src)
		if err != nil {
			return nil, fmt.Errorf("wire regex %q: %w", x.Src, err)
		}
		return &Regex{Source: x.Src, Re: re}, nil
	case *proto.Range:
		return Range{Lo: x.Start, Hi: x.End, Inclusive: x.Inclusive}, nil
	case *proto.Task:
		return &Handle{K: KTask, Repr: x.ID, Done: x.Done}, nil
	case *proto.Closure:
		return &Handle{K: KClosure, Repr: x.Repr}, nil
	case *proto.Stream:
		return &Handle{K: KStream, Repr: x.Label}, nil
	case *proto.Cmd:
		return &Handle{K: KCommand, Repr: x.Repr}, nil
	case *proto.Secret:
		return NewSecret(x.Name, ""), nil
	case *proto.Ref:
		return nil, fmt.Errorf("%w (%s)", ErrElided, x.URI)
	}
	return nil, fmt.Errorf("value: no runtime form for wire %T", w)
}

func tableFromProto(x *proto.Table, depth int) (Value, error) {
	t := &Table{Cols: append([]string(nil), x.Cols...), Data: make([][]Value, len(x.Data)), N: x.N}
	for c, col := range x.Data {
		if len(col) != x.N {
			return nil, fmt.Errorf("wire table column %q has %d cells, want %d", x.Cols[c], len(col), x.N)
		}
		out := make([]Value, len(col))
		for r, cell := range col {
			v, err := fromProto(cell, depth+1)
			if err != nil {
				return nil, err
			}
			out[r] = v
		}
		t.Data[c] = out
	}
	return t, nil
}

func outcomeFromProto(x *proto.Outcome, depth int) (Value, error) {
	o := &Outcome{Cmd: x.Cmd, Dur: time.Duration(x.DurNs)}
	if x.Status != nil {
		s := int(*x.Status)
		o.Status = &s
	}
	if x.Signal != nil {
		o.Signal = *x.Signal
	}
	if x.Pid != nil {
		o.Pid = int(*x.Pid)
	}
	switch out := x.Out.(type) {
	case proto.Str:
		o.Stdout = []byte(out)
	case proto.Bytes:
		o.Stdout = []byte(out)
	default:
		v, err := fromProto(out, depth+1)
		if err != nil {
			return nil, err
		}
		o.Out = v
	}
	switch e := x.Err.(type) {
	case proto.Str:
		o.Stderr = []byte(e)
	case proto.Bytes:
		o.Stderr = []byte(e)
	case nil, proto.Null:
	default:
		return nil, fmt.Errorf("wire outcome stderr must be str or bytes, got %s", e.Tag())
	}
	return o, nil
}
