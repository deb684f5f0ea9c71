// Package syntax owns Shoal source text up to the abstract syntax tree: the
// modal lexer, the parser with its statement-dispatch rules, the AST with byte
// spans, the stable JSON form of the AST (ast_version 2), and parse errors that
// carry a span, a hint and whether more input could complete them.
//
// The package never evaluates anything. Whether a bare identifier at the head
// of a statement is a value (expression) or a command is decided by a
// predicate the caller supplies (see ParseOptions.IsBound), so the kernel's
// parse method, exec and the REPL all agree.
package syntax

// ASTVersion versions the JSON vocabulary of the AST served over the protocol.
const ASTVersion = 2

// Span is a half-open range [Start, End) of UTF-8 byte offsets into the source.
// Offsets are 32-bit to keep AST nodes small; Parse rejects sources of
// maxSource bytes or more.
type Span struct {
	Start int32 `json:"start"`
	End   int32 `json:"end"`
}

// mkSpan returns the span [start, end) of int offsets.
func mkSpan(start, end int) Span { return Span{int32(start), int32(end)} }

// Join returns the smallest span covering s and t.
func (s Span) Join(t Span) Span {
	if t.Start < s.Start {
		s.Start = t.Start
	}
	if t.End > s.End {
		s.End = t.End
	}
	return s
}

// Node is anything with a source span.
type Node interface {
	Pos() Span
}

// Program is a parsed source unit.
type Program struct {
	Stmts []Stmt
	// Comments are the source's comments in order, kept only when
	// ParseOptions.Comments asks; trivia beside the tree, which the walker,
	// the JSON form and evaluation ignore.
	Comments []Comment
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Pattern is a match pattern node.
type Pattern interface {
	Node
	patternNode()
}

// ---------------------------------------------------------------------------
// Statements

// LetStmt is `let NAME (: T)? = init`, `var ...`, or `export let|var ...`.
// Name is "_" for a discarding binding.
type LetStmt struct {
	Name     string
	Type     *TypeExpr // nil when absent
	Init     Expr
	Mutable  bool // var
	Exported bool
	Span     Span
}

// FnStmt declares a named function.
type FnStmt struct {
	Decl *FnDecl
	Span Span
}

// FnDecl is a function declaration's signature and body.
type FnDecl struct {
	Name     string
	Params   []*Param
	Rest     *Param    // `...rest`, nil when absent
	Return   *TypeExpr // nil when absent
	Body     *Block
	Doc      string // leading `#` comment lines, if any
	Exported bool
	Span     Span
}

// Param is one declared parameter of a function or lambda.
type Param struct {
	Name    string
	Type    *TypeExpr // nil when absent
	Default Expr      // nil when absent
	Span    Span
}

// TypeExpr is a type annotation: NAME, NAME<args>, with an optional `?`.
type TypeExpr struct {
	Name     string
	Args     []*TypeExpr
	Optional bool
	Span     Span
}

// AliasStmt is `alias NAME = command words...`.
type AliasStmt struct {
	Name   string
	Target *CmdCall
	Span   Span
}

// UseStmt is `use ./path/to/module`, or `use ./path/to/module as name`
// (As is then the binding; otherwise it is the file's stem).
type UseStmt struct {
	Path string
	As   string
	Span Span
}

// AssignOp is the operator of an assignment statement. It is a small
// integer so that nodes stay compact; String gives its source spelling.
type AssignOp uint8

// Assignment operators.
const (
	AssignSet AssignOp = iota + 1 // =
	AssignAdd                     // +=
	AssignSub                     // -=
	AssignMul                     // *=
	AssignDiv                     // /=
)

var assignOpNames = [...]string{"", "=", "+=", "-=", "*=", "/="}

// String returns the operator's source spelling ("=", "+=", ...), or "" for
// the zero value.
func (o AssignOp) String() string { return enumName(assignOpNames[:], int(o)) }

// AssignStmt is `target op value`. Target is a *Var, *Field (including
// env.NAME) or *Index expression.
type AssignStmt struct {
	Target Expr
	Op     AssignOp
	Value  Expr
	Span   Span
}

// ReturnStmt is `return expr?`. Value is nil when absent.
type ReturnStmt struct {
	Value Expr
	Span  Span
}

// BreakStmt is `break`.
type BreakStmt struct{ Span Span }

// ContinueStmt is `continue`.
type ContinueStmt struct{ Span Span }

// ForStmt is `for NAME in iter { body }`. Var is "_" to discard.
type ForStmt struct {
	Var  string
	Iter Expr
	Body *Block
	Span Span
}

// WhileStmt is `while cond { body }`.
type WhileStmt struct {
	Cond Expr
	Body *Block
	Span Span
}

// ExprStmt is an expression (or command) in statement position.
type ExprStmt struct {
	X    Expr
	Span Span
}

// ---------------------------------------------------------------------------
// Literal expressions

// NullLit is `null`.
type NullLit struct{ Span Span }

// BoolLit is `true` or `false`.
type BoolLit struct {
	Value bool
	Span  Span
}

// IntLit is an integer literal in any base.
type IntLit struct {
	Value int64
	Span  Span
}

// FloatLit is a float literal.
type FloatLit struct {
	Value float64
	Span  Span
}

// StrLit is a string with no interpolation (any quote style, escapes and
// dedent already applied).
type StrLit struct {
	Value string
	Raw   bool // single-quoted (no escapes, no interpolation)
	Span  Span
}

// StrInterp is an interpolating string with at least one `{expr}` hole.
type StrInterp struct {
	Parts []StrPart
	Span  Span
}

// StrPart is a literal run (X == nil) or an interpolated expression.
type StrPart struct {
	Lit string
	X   Expr
}

// SizeLit is a size literal, converted to bytes (fractions rounded).
type SizeLit struct {
	Bytes int64
	Span  Span
}

// DurationLit is a duration literal in nanoseconds.
type DurationLit struct {
	Nanos int64
	Span  Span
}

// TimeLit is a time-of-day literal (`09:30`, `10:30:15pm`), as nanoseconds
// since midnight. HasSeconds records whether seconds were written.
type TimeLit struct {
	Nanos      int64
	HasSeconds bool
	Span       Span
}

// DateTimeLit is `t"..."`; the text is validated by the evaluator.
type DateTimeLit struct {
	Text string
	Span Span
}

// PathLit is an explicit path (./x, ../x, /x, ~/x, ~) written where a
// value is expected: a whole call argument (`watch(./src)`) or a value that
// cannot be a command (`with cwd: ./crates { … }`). Path is the text as
// written; the evaluator expands a leading ~.
type PathLit struct {
	Path string
	Span Span
}

// RegexLit is `re"..."`; the pattern is compiled by the evaluator.
type RegexLit struct {
	Pattern string
	Span    Span
}

// ---------------------------------------------------------------------------
// Access expressions

// Var is a bare name in expression position.
type Var struct {
	Name string
	Span Span
}

// Field is `x.name` or `x?.name`.
type Field struct {
	X        Expr
	Name     string
	Optional bool
	Span     Span
}

// Index is `x[i]`.
type Index struct {
	X     Expr
	Index Expr
	Span  Span
}

// Arg is one call argument; Name is non-empty for `name: value`.
type Arg struct {
	Name  string
	Value Expr
	Span  Span
}

// MethodCall is `x.name(args)` or `x?.name(args)`, with an optional
// trailing block that becomes a final zero-parameter lambda argument.
type MethodCall struct {
	X        Expr
	Name     string
	Args     []*Arg
	Optional bool
	Trailing *Block // nil when absent
	Span     Span
	// NameSpan is the method name's own span, where a diagnostic about
	// the call points (zero when unknown, as in a tree read from JSON,
	// which does not carry it).
	NameSpan Span
}

// Call is `f(args)` where f is any expression (a name, a lambda, ...).
type Call struct {
	Fn       Expr
	Args     []*Arg
	Trailing *Block
	Span     Span
}

// ---------------------------------------------------------------------------
// Data, functions and control

// List is `[a, b, ...]`.
type List struct {
	Elems []Expr
	Span  Span
}

// RecordField is one `key: value` entry of a record literal.
type RecordField struct {
	Key   string
	Value Expr
	Span  Span
}

// Record is `{key: value, ...}`.
type Record struct {
	Fields []*RecordField
	Span   Span
}

// Block is `{ stmts }` used as an expression; its value is the last
// statement's value (null when empty).
type Block struct {
	Stmts []Stmt
	Span  Span
}

// Lambda is `x => body`, `(a, b) => body`, or the item shorthand `.field`
// (which the parser desugars to a lambda with Implicit set and one
// parameter named ImplicitParam).
type Lambda struct {
	Params   []*Param
	Body     Expr // may be a *Block
	Implicit bool
	Span     Span
}

// ImplicitParam is the parameter name of a desugared `.field` shorthand. It
// cannot be written in source.
const ImplicitParam = "·it"

// If is `if cond { } else ...`; Else is nil, a *Block, or an *If.
type If struct {
	Cond Expr
	Then *Block
	Else Expr
	Span Span
}

// MatchArm is `pat | pat if guard => body`.
type MatchArm struct {
	Patterns []Pattern
	Guard    Expr // nil when absent
	Body     Expr // may be a *Block
	Span     Span
}

// Match is `match subject { arms }`.
type Match struct {
	Subject Expr
	Arms    []*MatchArm
	Span    Span
}

// Try is `try { } catch NAME? { }`. Binder is "" when absent.
type Try struct {
	Body    *Block
	Binder  string
	Handler *Block
	Span    Span
}

// Catch is the postfix `expr catch NAME? handler`. Binder is "" when absent;
// Handler may be a *Block or any expression.
type Catch struct {
	X       Expr
	Binder  string
	Handler Expr
	Span    Span
}

// WithEntry is one `key: value` of a `with` header (cwd, env, reef).
type WithEntry struct {
	Key   string
	Value Expr
	Span  Span
}

// With is `with cwd: x, env: {...} { body }`.
type With struct {
	Entries []*WithEntry
	Body    *Block
	Span    Span
}

// Spawn is `spawn { body }`.
type Spawn struct {
	Body *Block
	Span Span
}

// LangBlock is an interpreter block such as `sh { ... }` or
// `python3 ”'...”'`; Source is the raw, uninterpreted body.
type LangBlock struct {
	Tool   string
	Source string
	Span   Span
}

// BinOp is a binary operator. It is a small integer so that nodes stay
// compact; String gives its source spelling.
type BinOp uint8

// Binary operators.
const (
	OpCoalesce BinOp = iota + 1 // ??
	OpOr                        // ||
	OpAnd                       // &&
	OpEq                        // ==
	OpNe                        // !=
	OpLt                        // <
	OpLe                        // <=
	OpGt                        // >
	OpGe                        // >=
	OpIn                        // in
	OpAdd                       // +
	OpSub                       // -
	OpMul                       // *
	OpDiv                       // /
	OpRem                       // %
)

var binOpNames = [...]string{"", "??", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"}

// String returns the operator's source spelling ("+", "??", "in", ...), or
// "" for the zero value.
func (o BinOp) String() string { return enumName(binOpNames[:], int(o)) }

// Binary is `l op r`.
type Binary struct {
	Op   BinOp
	L, R Expr
	Span Span
}

// UnaryOp is a prefix operator. It is a small integer so that nodes stay
// compact; String gives its source spelling.
type UnaryOp uint8

// Unary operators.
const (
	OpNot UnaryOp = iota + 1 // !
	OpNeg                    // -
)

var unaryOpNames = [...]string{"", "!", "-"}

// String returns the operator's source spelling ("!" or "-"), or "" for the
// zero value.
func (o UnaryOp) String() string { return enumName(unaryOpNames[:], int(o)) }

// Unary is `op x`.
type Unary struct {
	Op   UnaryOp
	X    Expr
	Span Span
}

// Range is `lo..hi` or `lo..=hi`.
type Range struct {
	Lo, Hi    Expr
	Inclusive bool
	Span      Span
}

// Cmd is a command call in expression or statement position. Whether it is
// captured (value position) or streamed (statement position) is decided by
// the evaluator from context, not stored here.
type Cmd struct {
	Call *CmdCall
	Span Span
}

// ---------------------------------------------------------------------------
// Commands

// CmdCall is a structured command invocation.
type CmdCall struct {
	Env        []*EnvPrefix
	Forced     bool    // `^head`
	Head       *CmdArg // Kind is ArgWord or ArgPath
	Args       []*CmdArg
	Redirects  []*Redirect
	Background bool   // trailing `&`
	Trailing   *Block // trailing block argument, nil when absent
	Span       Span
}

// ArgKind classifies a command argument. It is a small integer so that
// command words stay compact; String gives its stable name (the JSON form).
type ArgKind uint8

// Command argument kinds.
const (
	ArgWord      ArgKind = iota + 1 // bare word: Text
	ArgPath                         // ./x, ../x, /x, ~/x, ~: Text
	ArgGlob                         // word with glob metacharacters: Text
	ArgStr                          // quoted string: X is *StrLit or *StrInterp
	ArgExpr                         // (expr-or-command): X
	ArgLongFlag                     // --name or --name=value: Name, Value (nil when absent)
	ArgShortFlag                    // -abc: Text holds "abc"
	ArgDashDash                     // --
	ArgDash                         // -
)

var argKindNames = [...]string{
	ArgWord: "word", ArgPath: "path", ArgGlob: "glob", ArgStr: "str", ArgExpr: "expr",
	ArgLongFlag: "long_flag", ArgShortFlag: "short_flag", ArgDashDash: "dash_dash", ArgDash: "dash",
}

// String returns the kind's stable name ("word", "long_flag", ...), or ""
// for the zero value.
func (k ArgKind) String() string {
	if int(k) < len(argKindNames) {
		return argKindNames[k]
	}
	return ""
}

// CmdArg is one command word, in its structured form.
type CmdArg struct {
	Kind  ArgKind
	Text  string  // word/path/glob text; short-flag letters
	Name  string  // long-flag name
	Value *CmdArg // long-flag `=value` (or following value word), nil when absent
	X     Expr    // ArgStr / ArgExpr
	Span  Span
}

// RedirectKind is `>`, `>>` or `<`. It is a small integer so that nodes
// stay compact; String gives its stable name.
type RedirectKind uint8

// Redirect kinds.
const (
	RedirOut    RedirectKind = iota + 1 // > ("out")
	RedirAppend                         // >> ("append")
	RedirIn                             // < ("in")
)

var redirectKindNames = [...]string{"", "out", "append", "in"}

// String returns the kind's stable name ("out", "append" or "in"), or ""
// for the zero value.
func (k RedirectKind) String() string { return enumName(redirectKindNames[:], int(k)) }

// enumName returns names[i], or "" when i is out of range.
func enumName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}

// Redirect is a command redirect.
type Redirect struct {
	Kind   RedirectKind
	Target *CmdArg
	Span   Span
}

// EnvPrefix is `NAME=value` before a command head.
type EnvPrefix struct {
	Name  string
	Value *CmdArg
	Span  Span
}

// ---------------------------------------------------------------------------
// Patterns

// WildcardPat is `_`.
type WildcardPat struct{ Span Span }

// BindPat binds the matched value to Name.
type BindPat struct {
	Name string
	Span Span
}

// LitPat matches by equality with a literal expression (null, bool, int,
// float, string, negative number, size, duration).
type LitPat struct {
	Value Expr
	Span  Span
}

// RangePat is `lo..hi` / `lo..=hi` over integers.
type RangePat struct {
	Lo, Hi    int64
	Inclusive bool
	Span      Span
}

// TypePat is `TYPE binder?`, e.g. `int n`. Binder is "" when absent.
type TypePat struct {
	Type   string
	Binder string
	Span   Span
}

// RecordPatField is `key` (shorthand: Pat == nil binds key) or `key: pat`.
type RecordPatField struct {
	Key  string
	Pat  Pattern
	Span Span
}

// RecordPat is `{a, b: pat}`; extra fields in the subject are allowed.
type RecordPat struct {
	Fields []*RecordPatField
	Span   Span
}

// ListPat is `[a, b]` (exact length) or `[a, ...rest]`. HasRest reports a
// rest element; Rest is its binder ("" or "_" binds nothing).
type ListPat struct {
	Elems   []Pattern
	HasRest bool
	Rest    string
	Span    Span
}

// ---------------------------------------------------------------------------
// Node plumbing

func (n *LetStmt) Pos() Span      { return n.Span }
func (n *FnStmt) Pos() Span       { return n.Span }
func (n *AliasStmt) Pos() Span    { return n.Span }
func (n *UseStmt) Pos() Span      { return n.Span }
func (n *AssignStmt) Pos() Span   { return n.Span }
func (n *ReturnStmt) Pos() Span   { return n.Span }
func (n *BreakStmt) Pos() Span    { return n.Span }
func (n *ContinueStmt) Pos() Span { return n.Span }
func (n *ForStmt) Pos() Span      { return n.Span }
func (n *WhileStmt) Pos() Span    { return n.Span }
func (n *ExprStmt) Pos() Span     { return n.Span }

func (*LetStmt) stmtNode()      {}
func (*FnStmt) stmtNode()       {}
func (*AliasStmt) stmtNode()    {}
func (*UseStmt) stmtNode()      {}
func (*AssignStmt) stmtNode()   {}
func (*ReturnStmt) stmtNode()   {}
func (*BreakStmt) stmtNode()    {}
func (*ContinueStmt) stmtNode() {}
func (*ForStmt) stmtNode()      {}
func (*WhileStmt) stmtNode()    {}
func (*ExprStmt) stmtNode()     {}

func (n *NullLit) Pos() Span     { return n.Span }
func (n *BoolLit) Pos() Span     { return n.Span }
func (n *IntLit) Pos() Span      { return n.Span }
func (n *FloatLit) Pos() Span    { return n.Span }
func (n *StrLit) Pos() Span      { return n.Span }
func (n *StrInterp) Pos() Span   { return n.Span }
func (n *SizeLit) Pos() Span     { return n.Span }
func (n *DurationLit) Pos() Span { return n.Span }
func (n *TimeLit) Pos() Span     { return n.Span }
func (n *DateTimeLit) Pos() Span { return n.Span }
func (n *PathLit) Pos() Span     { return n.Span }
func (n *RegexLit) Pos() Span    { return n.Span }
func (n *Var) Pos() Span         { return n.Span }
func (n *Field) Pos() Span       { return n.Span }
func (n *Index) Pos() Span       { return n.Span }
func (n *MethodCall) Pos() Span  { return n.Span }
func (n *Call) Pos() Span        { return n.Span }
func (n *List) Pos() Span        { return n.Span }
func (n *Record) Pos() Span      { return n.Span }
func (n *Block) Pos() Span       { return n.Span }
func (n *Lambda) Pos() Span      { return n.Span }
func (n *If) Pos() Span          { return n.Span }
func (n *Match) Pos() Span       { return n.Span }
func (n *Try) Pos() Span         { return n.Span }
func (n *Catch) Pos() Span       { return n.Span }
func (n *With) Pos() Span        { return n.Span }
func (n *Spawn) Pos() Span       { return n.Span }
func (n *LangBlock) Pos() Span   { return n.Span }
func (n *Binary) Pos() Span      { return n.Span }
func (n *Unary) Pos() Span       { return n.Span }
func (n *Range) Pos() Span       { return n.Span }
func (n *Cmd) Pos() Span         { return n.Span }

func (*NullLit) exprNode()     {}
func (*BoolLit) exprNode()     {}
func (*IntLit) exprNode()      {}
func (*FloatLit) exprNode()    {}
func (*StrLit) exprNode()      {}
func (*StrInterp) exprNode()   {}
func (*SizeLit) exprNode()     {}
func (*DurationLit) exprNode() {}
func (*TimeLit) exprNode()     {}
func (*DateTimeLit) exprNode() {}
func (*PathLit) exprNode()     {}
func (*RegexLit) exprNode()    {}
func (*Var) exprNode()         {}
func (*Field) exprNode()       {}
func (*Index) exprNode()       {}
func (*MethodCall) exprNode()  {}
func (*Call) exprNode()        {}
func (*List) exprNode()        {}
func (*Record) exprNode()      {}
func (*Block) exprNode()       {}
func (*Lambda) exprNode()      {}
func (*If) exprNode()          {}
func (*Match) exprNode()       {}
func (*Try) exprNode()         {}
func (*Catch) exprNode()       {}
func (*With) exprNode()        {}
func (*Spawn) exprNode()       {}
func (*LangBlock) exprNode()   {}
func (*Binary) exprNode()      {}
func (*Unary) exprNode()       {}
func (*Range) exprNode()       {}
func (*Cmd) exprNode()         {}

func (n *WildcardPat) Pos() Span { return n.Span }
func (n *BindPat) Pos() Span     { return n.Span }
func (n *LitPat) Pos() Span      { return n.Span }
func (n *RangePat) Pos() Span    { return n.Span }
func (n *TypePat) Pos() Span     { return n.Span }
func (n *RecordPat) Pos() Span   { return n.Span }
func (n *ListPat) Pos() Span     { return n.Span }

func (*WildcardPat) patternNode() {}
func (*BindPat) patternNode()     {}
func (*LitPat) patternNode()      {}
func (*RangePat) patternNode()    {}
func (*TypePat) patternNode()     {}
func (*RecordPat) patternNode()   {}
func (*ListPat) patternNode()     {}
