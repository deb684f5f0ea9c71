package proto

import "time"

// Tag is a wire value's `$` discriminator.
type Tag string

// The wire value tags.
const (
	TagNull     Tag = "null"
	TagBool     Tag = "bool"
	TagInt      Tag = "int"
	TagFloat    Tag = "float"
	TagStr      Tag = "str"
	TagBytes    Tag = "bytes"
	TagPath     Tag = "path"
	TagSize     Tag = "size"
	TagDuration Tag = "duration"
	TagDateTime Tag = "datetime"
	TagTime     Tag = "time"
	TagList     Tag = "list"
	TagRecord   Tag = "record"
	TagTable    Tag = "table"
	TagOutcome  Tag = "outcome"
	TagError    Tag = "error"
	TagGlob     Tag = "glob"
	TagRegex    Tag = "regex"
	TagRange    Tag = "range"
	TagTask     Tag = "task"
	TagClosure  Tag = "closure"
	TagStream   Tag = "stream"
	TagSecret   Tag = "secret"
	TagCmd      Tag = "cmd"
	TagRef      Tag = "ref"
)

// Value is a decoded wire value; the concrete types below, one per tag,
// implement it. A nil Value encodes as null.
type Value interface {
	Tag() Tag
	wire()
}

// Null is {"$":"null"}.
type Null struct{}

// Bool is {"$":"bool","v":true}.
type Bool bool

// Int is {"$":"int","v":42}.
type Int int64

// Float is {"$":"float","v":3.5}. NaN and ±Inf, which JSON numbers cannot
// express, travel as the strings "nan", "inf" and "-inf".
type Float float64

// Str is {"$":"str","v":"text"}.
type Str string

// Bytes is {"$":"bytes","v":"<standard base64>"}.
type Bytes []byte

// Path is {"$":"path","v":"display","raw":"<base64>"}. V is the readable
// (lossy UTF-8) form; Raw, when non-nil, holds the exact bytes and is
// authoritative.
type Path struct {
	V   string
	Raw []byte
}

// Size is {"$":"size","v":4096}: a non-negative byte count.
type Size int64

// Duration is {"$":"duration","v":1000000}: signed nanoseconds.
type Duration int64

// DateTime is {"$":"datetime","v":"2026-07-16T09:30:00Z"}: RFC 3339 with
// offset, fractional seconds kept when non-zero. Years 0000-9999.
type DateTime struct{ T time.Time }

// Time is {"$":"time","v":"HH:MM:SS[.fraction]"}: a time of day, held as
// nanoseconds since midnight in [0, 24h).
type Time int64

// List is {"$":"list","v":[...]}.
type List []Value

// Record is {"$":"record","v":{...}} with fields in order. Keys are unique.
type Record struct {
	Keys []string
	Vals []Value
}

// Table is {"$":"table","cols":{"name":[...]},"n":N}: columnar, every
// column holding exactly N cells (Data[c][r]). Column names are unique.
type Table struct {
	Cols []string
	Data [][]Value
	N    int
}

// Span is a byte range in Shoal source.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Outcome is {"$":"outcome","status","ok","signal","out","err","dur_ns",
// "pid","cmd"} plus an optional "span". Status, Signal and Pid are null
// when nil; Out is the structured output and Err the captured stderr.
type Outcome struct {
	Status *int64
	Ok     bool
	Signal *string
	Out    Value
	Err    Value
	DurNs  int64
	Pid    *int64
	Cmd    string
	Span   *Span
}

// Error is a language error value: {"$":"error","code","msg"} with
// optional "span", "hint" and "stderr". Hint is omitted when empty and
// Stderr when nil.
type Error struct {
	Code   string
	Msg    string
	Span   *Span
	Hint   string
	Stderr Value
}

// Glob is {"$":"glob","pattern":"*.go"}, with "hidden":true when the
// pattern also matches dot files.
type Glob struct {
	Pattern string
	Hidden  bool
}

// Regex is {"$":"regex","src":"..."}.
type Regex struct{ Src string }

// Range is {"$":"range","start":1,"end":5,"inclusive":false}.
type Range struct {
	Start, End int64
	Inclusive  bool
}

// Task is {"$":"task","id":"task:7","done":false}: a snapshot descriptor.
type Task struct {
	ID   string
	Done bool
}

// Closure is {"$":"closure","repr":"fn add(a, b)"}: display only, never
// invocable over the wire.
type Closure struct{ Repr string }

// Stream is {"$":"stream","label":"..."}: a label only.
type Stream struct{ Label string }

// Secret is {"$":"secret","name":"github-token"}: the material never
// crosses the wire.
type Secret struct{ Name string }

// Cmd is {"$":"cmd","repr":"git status"}: a display-only command.
type Cmd struct{ Repr string }

// Ref is an elided value: {"$":"ref","uri","of","n"} with optional "cols"
// (column name to type name, in order), "preview" and "render_head".
type Ref struct {
	URI        string
	Of         string
	N          int64
	Cols       []RefCol // nil: absent
	Preview    Value    // nil: absent
	RenderHead string   // "": absent
}

// RefCol is one column of an elided table's schema.
type RefCol struct {
	Name, Type string
}

func (Null) Tag() Tag     { return TagNull }
func (Bool) Tag() Tag     { return TagBool }
func (Int) Tag() Tag      { return TagInt }
func (Float) Tag() Tag    { return TagFloat }
func (Str) Tag() Tag      { return TagStr }
func (Bytes) Tag() Tag    { return TagBytes }
func (*Path) Tag() Tag    { return TagPath }
func (Size) Tag() Tag     { return TagSize }
func (Duration) Tag() Tag { return TagDuration }
func (DateTime) Tag() Tag { return TagDateTime }
func (Time) Tag() Tag     { return TagTime }
func (List) Tag() Tag     { return TagList }
func (*Record) Tag() Tag  { return TagRecord }
func (*Table) Tag() Tag   { return TagTable }
func (*Outcome) Tag() Tag { return TagOutcome }
func (*Error) Tag() Tag   { return TagError }
func (*Glob) Tag() Tag    { return TagGlob }
func (*Regex) Tag() Tag   { return TagRegex }
func (*Range) Tag() Tag   { return TagRange }
func (*Task) Tag() Tag    { return TagTask }
func (*Closure) Tag() Tag { return TagClosure }
func (*Stream) Tag() Tag  { return TagStream }
func (*Secret) Tag() Tag  { return TagSecret }
func (*Cmd) Tag() Tag     { return TagCmd }
func (*Ref) Tag() Tag     { return TagRef }

func (Null) wire()     {}
func (Bool) wire()     {}
func (Int) wire()      {}
func (Float) wire()    {}
func (Str) wire()      {}
func (Bytes) wire()    {}
func (*Path) wire()    {}
func (Size) wire()     {}
func (Duration) wire() {}
func (DateTime) wire() {}
func (Time) wire()     {}
func (List) wire()     {}
func (*Record) wire()  {}
func (*Table) wire()   {}
func (*Outcome) wire() {}
func (*Error) wire()   {}
func (*Glob) wire()    {}
func (*Regex) wire()   {}
func (*Range) wire()   {}
func (*Task) wire()    {}
func (*Closure) wire() {}
func (*Stream) wire()  {}
func (*Secret) wire()  {}
func (*Cmd) wire()     {}
func (*Ref) wire()     {}
