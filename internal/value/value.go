// Package value owns Shoal's runtime values: their types, equality and
// ordering, unit-aware arithmetic, the method library, and the inline and
// display renderings. Values are immutable once built; tables are columnar.
//
// The package does not evaluate source. Methods that need to call back into
// the language (map, where, sort_by, ...) do so through the Env interface the
// evaluator supplies.
package value

import (
	"context"
	"regexp"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Kind is a value's runtime type.
type Kind uint8

// The runtime kinds. Their String form is the type name used in source
// (`int n` patterns, type annotations, error messages).
const (
	KNull Kind = iota
	KBool
	KInt
	KFloat
	KStr
	KBytes
	KPath
	KGlob
	KRegex
	KSize
	KDuration
	KDateTime
	KTime
	KRange
	KList
	KRecord
	KTable
	KOutcome
	KError
	KClosure
	KTask
	KStream
	KSecret
	KCommand
	KNamespace
	numKinds
)

var kindNames = [numKinds]string{
	"null", "bool", "int", "float", "str", "bytes", "path", "glob", "regex",
	"size", "duration", "datetime", "time", "range", "list", "record", "table",
	"outcome", "error", "closure", "task", "stream", "secret", "command", "namespace",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// KindByName maps a type name to its Kind.
func KindByName(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}

// Value is any Shoal value.
type Value interface {
	Kind() Kind
}

// Null is the null value; use the Nil variable.
type Null struct{}

// Nil is the null value.
var Nil Value = Null{}

// Bool is a boolean.
type Bool bool

// Int is a 64-bit signed integer; overflow is an error, never a wrap.
type Int int64

// Float is a 64-bit float.
type Float float64

// Str is Unicode text.
type Str string

// Bytes is an arbitrary byte sequence, stored in a string so it is
// immutable and comparable.
type Bytes string

// Path is a filesystem path; the string holds the platform bytes, which may
// not be valid UTF-8.
type Path string

// Glob is a glob pattern, unexpanded.
type Glob struct {
	Pattern string
	Hidden  bool // match dot files too
}

// Regex is a compiled regular expression with its source.
type Regex struct {
	Source string
	Re     *regexp.Regexp
}

// Size is a non-negative byte count.
type Size int64

// Duration is a signed count of nanoseconds.
type Duration int64

// DateTime is an instant with a zone offset.
type DateTime struct {
	T time.Time
}

// Time is a time of day as nanoseconds since midnight.
type Time int64

// Range is an integer interval lo..hi or lo..=hi.
type Range struct {
	Lo, Hi    int64
	Inclusive bool
}

// List is an ordered sequence. Items must not be mutated once shared.
type List struct {
	Items []Value
}

// Record is an ordered set of named fields.
type Record struct {
	keys []string
	vals []Value
}

// Table is a columnar collection of rows sharing named columns. Every
// column in Data has exactly N cells; a missing cell is Nil.
type Table struct {
	Cols []string
	Data [][]Value // Data[c][r]
	N    int
}

// Outcome is the result of running a command.
type Outcome struct {
	Cmd     string   // the command line as run
	Argv    []string // argv as spawned, when external
	Status  *int     // exit status; nil when killed by a signal
	Signal  string   // e.g. "SIGSEGV"; "" when none
	Stdout  []byte
	Stderr  []byte
	Out     Value // structured output (parsed JSON, a builtin's value, or text); nil means derive from Stdout
	Pid     int
	Dur     time.Duration
	Builtin bool // produced by a builtin rather than a process
	// OkCodes are the exit statuses that count as success (a command
	// adapter's ok_codes: rg's 1 means no matches); nil means only 0.
	OkCodes []int
}

// Ok reports whether the command succeeded: it exited, with status 0 or
// one of OkCodes.
func (o *Outcome) Ok() bool {
	if o.Signal != "" || o.Status == nil {
		return false
	}
	if o.OkCodes == nil {
		return *o.Status == 0
	}
	for _, c := range o.OkCodes {
		if c == *o.Status {
			return true
		}
	}
	return false
}

// Error is a language error. It is both a Go error (how it propagates) and
// a Value (what `catch err` binds).
type Error struct {
	Code   string // stable code: type_error, field_missing, div_zero, ...
	Msg    string
	Hint   string
	Span   syntax.Span
	HasPos bool  // Span is meaningful
	Status Value // exit status for cmd_failed, else nil
	Stderr Value // captured stderr for cmd_failed, else nil
}

func (e *Error) Error() string { return e.Code + ": " + e.Msg }

// Errorf builds a language error with a code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: sprintf(format, args...)}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// At returns e with its span set, unless it already has one.
func (e *Error) At(s syntax.Span) *Error {
	if !e.HasPos {
		e.Span, e.HasPos = s, true
	}
	return e
}

// Secret is redacted sensitive material; only its name is ever shown.
type Secret struct {
	Name  string
	value string
}

// NewSecret wraps sensitive material.
func NewSecret(name, v string) *Secret { return &Secret{Name: name, value: v} }

// Reveal returns the protected content; callers must not render it.
func (s *Secret) Reveal() string { return s.value }

// Builtin is a native function value (namespace functions, builtins used
// as values).
type Builtin struct {
	Name string
	Fn   func(env Env, args Args) (Value, error)
}

// Namespace is a named group of constants and functions such as `math`.
type Namespace struct {
	Name    string
	Members map[string]Value
}

func (Null) Kind() Kind       { return KNull }
func (Bool) Kind() Kind       { return KBool }
func (Int) Kind() Kind        { return KInt }
func (Float) Kind() Kind      { return KFloat }
func (Str) Kind() Kind        { return KStr }
func (Bytes) Kind() Kind      { return KBytes }
func (Path) Kind() Kind       { return KPath }
func (*Glob) Kind() Kind      { return KGlob }
func (*Regex) Kind() Kind     { return KRegex }
func (Size) Kind() Kind       { return KSize }
func (Duration) Kind() Kind   { return KDuration }
func (DateTime) Kind() Kind   { return KDateTime }
func (Time) Kind() Kind       { return KTime }
func (Range) Kind() Kind      { return KRange }
func (*List) Kind() Kind      { return KList }
func (*Record) Kind() Kind    { return KRecord }
func (*Table) Kind() Kind     { return KTable }
func (*Outcome) Kind() Kind   { return KOutcome }
func (*Error) Kind() Kind     { return KError }
func (*Secret) Kind() Kind    { return KSecret }
func (*Builtin) Kind() Kind   { return KClosure }
func (*Namespace) Kind() Kind { return KNamespace }

// NewList wraps items (not copied).
func NewList(items []Value) *List { return &List{Items: items} }

// NewRecord builds a record from parallel key and value slices (not copied).
// Later duplicate keys replace earlier ones.
func NewRecord(keys []string, vals []Value) *Record {
	r := &Record{keys: make([]string, 0, len(keys)), vals: make([]Value, 0, len(vals))}
	if len(keys) <= smallRecord {
		for i, k := range keys {
			r.put(k, vals[i])
		}
		return r
	}
	// Many keys: find duplicates with a map, not a scan per key, so a
	// decoded object of 100 000 keys takes linear time, not seconds.
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		if j, dup := at[k]; dup {
			r.vals[j] = vals[i]
			continue
		}
		at[k] = len(r.keys)
		r.keys = append(r.keys, k)
		r.vals = append(r.vals, vals[i])
	}
	return r
}

// smallRecord is the size up to which NewRecord finds duplicate keys by
// scanning.
const smallRecord = 16

// Len is the number of fields.
func (r *Record) Len() int { return len(r.keys) }

// Keys returns the field names in order; the caller must not modify it.
func (r *Record) Keys() []string { return r.keys }

// Values returns the field values in order; the caller must not modify it.
func (r *Record) Values() []Value { return r.vals }

// Get returns the named field.
func (r *Record) Get(k string) (Value, bool) {
	for i, kk := range r.keys {
		if kk == k {
			return r.vals[i], true
		}
	}
	return nil, false
}

// With returns a copy of r with field k set to v (replaced in place when it
// exists, appended otherwise).
func (r *Record) With(k string, v Value) *Record {
	out := &Record{keys: append([]string(nil), r.keys...), vals: append([]Value(nil), r.vals...)}
	out.put(k, v)
	return out
}

func (r *Record) put(k string, v Value) {
	for i, kk := range r.keys {
		if kk == k {
			r.vals[i] = v
			return
		}
	}
	r.keys = append(r.keys, k)
	r.vals = append(r.vals, v)
}

// Row returns row i of a table as a record.
func (t *Table) Row(i int) *Record {
	vals := make([]Value, len(t.Cols))
	for c := range t.Cols {
		vals[c] = t.Data[c][i]
	}
	return &Record{keys: t.Cols, vals: vals}
}

// Col returns the index of a column, or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Cols {
		if c == name {
			return i
		}
	}
	return -1
}

// Env is what methods and native functions may ask of the evaluator.
type Env interface {
	// Call invokes a callable value (closure or builtin) with positional
	// arguments.
	Call(fn Value, args ...Value) (Value, error)
	// Context is cancelled when the evaluation is cancelled.
	Context() context.Context
	// Now is the evaluation's clock for measuring intervals (throttle,
	// debounce, windows); it is not gated and never becomes a value.
	Now() time.Time
	// Clock reads the wall clock for a time the program computes with
	// (ago, from_now); it asks the time effect and may be refused.
	Clock() (time.Time, error)
}

// EffectCaller is implemented by an Env that can call a function for its
// effects alone, as `.each` does: the function's body runs as a statement
// (a command in it prints its output; a failed one raises), like the body
// of a for loop.
type EffectCaller interface {
	CallForEffect(fn Value, args ...Value) error
}

// CallForEffect calls f through env for its effects, as a statement when
// env is an EffectCaller, else as an ordinary call whose result is dropped.
func CallForEffect(env Env, f Value, args ...Value) error {
	if ec, ok := env.(EffectCaller); ok {
		return ec.CallForEffect(f, args...)
	}
	_, err := env.Call(f, args...)
	return err
}

// Blocker is implemented by an Env whose evaluation holds a lock it must
// give up while it waits: Block runs f, which waits for something outside
// the evaluation (a timer, a queue) and touches none of its state, with
// that lock given up.
type Blocker interface {
	Block(f func())
}

// Block runs f through env when env is a Blocker (its lock given up
// while f waits), else directly.
func Block(env Env, f func()) {
	if b, ok := env.(Blocker); ok {
		b.Block(f)
		return
	}
	f()
}

// NamedArg is a `name: value` call argument.
type NamedArg struct {
	Name  string
	Value Value
}

// Args are the evaluated arguments of a call.
type Args struct {
	Pos   []Value
	Named []NamedArg
}

// Get returns the named argument.
func (a Args) Get(name string) (Value, bool) {
	for _, n := range a.Named {
		if n.Name == name {
			return n.Value, true
		}
	}
	return nil, false
}
