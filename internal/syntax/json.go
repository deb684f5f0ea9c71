package syntax

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// ErrTooLarge reports that the JSON form of a tree would be longer than the
// limit AppendProgram was given.
var ErrTooLarge = errors.New("syntax: the AST's JSON is larger than the limit")

// MarshalProgram renders p in the stable JSON form of the AST (ast_version
// 2): {"stmts":[...]}. Every node is an object whose "kind" is the
// snake_case node name with a Stmt/Lit suffix dropped (let, fn, int, str,
// str_interp, method_call, cmd, ...; patterns keep a _pat suffix such as
// bind_pat), followed by its fields in snake_case and "span":{"start","end"}.
// A Go field named Kind is written under its type's name (arg_kind,
// redirect_kind). Absent optional nodes are null; empty lists are [].
func MarshalProgram(p *Program) ([]byte, error) {
	return AppendProgram(nil, p, 0)
}

// AppendProgram appends the JSON form of p (see MarshalProgram) to dst and
// returns the extended buffer. With limit > 0 the result may be at most
// limit bytes long, dst's own bytes included: past it AppendProgram stops
// early and returns an error wrapping ErrTooLarge, so a huge tree costs at
// most limit bytes. A tree deeper than MaxDepth, which neither Parse nor
// UnmarshalProgram returns, is an error too, not a deep recursion. On error
// the returned slice is dst with unspecified bytes appended.
func AppendProgram(dst []byte, p *Program, limit int) (out []byte, err error) {
	if p == nil {
		return dst, fmt.Errorf("marshal program: nil program")
	}
	if limit <= 0 {
		limit = math.MaxInt
	}
	e := jenc{buf: dst, limit: limit}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(encodeBailout)
			if !ok {
				panic(r)
			}
			out, err = e.buf, fmt.Errorf("marshal program: %w", b.err)
		}
	}()
	e.raw(`{"stmts":`)
	e.stmts(p.Stmts)
	e.raw("}")
	e.check()
	return e.buf, nil
}

// jenc appends JSON to buf. It checks the length against limit once per
// node and before each string, so it overshoots by at most one node's
// fixed text; errors unwind to AppendProgram as an encodeBailout.
type jenc struct {
	buf   []byte
	limit int
	depth int // node functions nested, at most MaxDepth
}

type encodeBailout struct{ err error }

func (e *jenc) fail(err error) { panic(encodeBailout{err}) }

// check fails once the buffer is over the limit.
func (e *jenc) check() {
	if len(e.buf) > e.limit {
		e.fail(fmt.Errorf("%w of %d bytes", ErrTooLarge, e.limit))
	}
}

// enter and leave bracket the encoding of a node that may hold nodes of
// its own kind, bounding the recursion.
func (e *jenc) enter() {
	if e.depth++; e.depth > MaxDepth {
		e.fail(fmt.Errorf("tree nested deeper than %d nodes", MaxDepth))
	}
}

func (e *jenc) leave() { e.depth-- }

func (e *jenc) raw(s string) { e.buf = append(e.buf, s...) }

// close ends a node object with its span. Spans are half the encoder's
// work, so the whole tail is written in place into room made once, its
// fixed text in word stores.
func (e *jenc) close(s Span) {
	if s.Start < 0 || s.End < 0 {
		e.buf = append(e.buf, spanHead...)
		e.buf = appendInt(e.buf, int64(s.Start))
		e.buf = append(e.buf, spanMid...)
		e.buf = appendInt(e.buf, int64(s.End))
		e.buf = append(e.buf, "}}"...)
		e.check()
		return
	}
	// The digits take at most 10 bytes each, and putDigits stores 8 at a
	// time, so the room covers its overshoot after the second number.
	const room = len(spanHead) + 10 + len(spanMid) + 10 + 8
	b := e.buf
	if cap(b)-len(b) < room {
		b = append(b, make([]byte, room)...)[:len(b)]
	}
	n := len(b)
	b = b[:n+room]
	binary.LittleEndian.PutUint64(b[n:], spanHead0)
	binary.LittleEndian.PutUint64(b[n+8:], spanHead1)
	b[n+16] = ':'
	n = putDigits(b, n+len(spanHead), uint32(s.Start))
	binary.LittleEndian.PutUint64(b[n:], spanMid0) // its eighth byte is overwritten
	n = putDigits(b, n+len(spanMid), uint32(s.End))
	binary.LittleEndian.PutUint16(b[n:], '}'|'}'<<8)
	e.buf = b[:n+2]
	e.check()
}

// A span's fixed text, and its bytes as little-endian words for close.
const (
	spanHead = `,"span":{"start":`
	spanMid  = `,"end":`
)

var (
	spanHead0 = binary.LittleEndian.Uint64([]byte(spanHead[0:8]))
	spanHead1 = binary.LittleEndian.Uint64([]byte(spanHead[8:16]))
	spanMid0  = binary.LittleEndian.Uint64([]byte(spanMid + " "))
)

// putDigits writes u in decimal at b[n:] and returns the index after it.
// b must have 8 bytes from n on, or 10 when u >= 100000: a number under
// 100000 (a span in any source under 100 kB) is written as one word
// store, which may write past the digits.
func putDigits(b []byte, n int, u uint32) int {
	if u < 10000 {
		w := 1 + b2i(u >= 10) + b2i(u >= 100) + b2i(u >= 1000) // no branch to mispredict
		x := uint64(digitPairs16[u/100]) | uint64(digitPairs16[u%100])<<16
		binary.LittleEndian.PutUint64(b[n:], x>>((4-w)*8))
		return n + w
	}
	if u < 100000 {
		top := u / 10000
		rest := u - top*10000
		x := uint64('0'+top) | uint64(digitPairs16[rest/100])<<8 | uint64(digitPairs16[rest%100])<<24
		binary.LittleEndian.PutUint64(b[n:], x)
		return n + 5
	}
	w := decimalWidth(u)
	i := n + w
	for u >= 100 {
		q := u / 100
		i -= 2
		binary.LittleEndian.PutUint16(b[i:], digitPairs16[u-q*100])
		u = q
	}
	if u >= 10 {
		binary.LittleEndian.PutUint16(b[i-2:], digitPairs16[u])
	} else {
		b[i-1] = byte('0' + u)
	}
	return n + w
}

// b2i is 1 for true, 0 for false, compiled without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// appendInt appends n in decimal. Spans and most literals are small and
// non-negative: their digits are written in place, about three times
// faster than strconv's format-then-copy.
func appendInt(b []byte, n int64) []byte {
	if n < 0 || n >= 1e9 {
		return strconv.AppendInt(b, n, 10)
	}
	u := uint32(n)
	l := len(b)
	if cap(b)-l < 10 {
		b = append(b, make([]byte, 10)...)
	}
	w := putDigits(b[:l+10], l, u)
	return b[:w]
}

// decimalWidth is the number of decimal digits of u < 1e10.
func decimalWidth(u uint32) int {
	switch {
	case u < 10:
		return 1
	case u < 100:
		return 2
	case u < 1000:
		return 3
	case u < 10000:
		return 4
	case u < 100000:
		return 5
	case u < 1000000:
		return 6
	case u < 10000000:
		return 7
	case u < 100000000:
		return 8
	case u < 1000000000:
		return 9
	}
	return 10
}

// digitPairs16 holds the two ASCII digits of 0..99 as little-endian
// 16-bit words: "07" is '0' | '7'<<8.
var digitPairs16 = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return t
}()

// str appends key (a literal `,"name":`) and s as a JSON string.
func (e *jenc) str(key, s string) {
	e.raw(key)
	e.quote(s)
}

func (e *jenc) boolean(key string, v bool) {
	e.raw(key)
	if v {
		e.raw("true")
	} else {
		e.raw("false")
	}
}

func (e *jenc) int(key string, v int64) {
	e.raw(key)
	e.buf = appendInt(e.buf, v)
}

// name appends key and a name from a fixed table (an operator or a kind),
// which never needs escaping.
func (e *jenc) name(key, s string) {
	e.raw(key)
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, '"')
}

// plain marks the bytes a JSON string holds as they are: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// quote appends s as a JSON string: '"', '\\' and control characters are
// escaped, invalid UTF-8 becomes U+FFFD, nothing else is changed.
func (e *jenc) quote(s string) {
	if len(e.buf)+len(s) > e.limit {
		e.fail(fmt.Errorf("%w of %d bytes", ErrTooLarge, e.limit))
	}
	b := append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += w
	}
	b = append(b, s[start:]...)
	e.buf = append(b, '"')
}

func (e *jenc) stmts(ss []Stmt) {
	e.buf = append(e.buf, '[')
	for i, s := range ss {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.stmt(s)
	}
	e.buf = append(e.buf, ']')
}

func (e *jenc) exprs(key string, xs []Expr) {
	e.raw(key)
	e.buf = append(e.buf, '[')
	for i, x := range xs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.expr(x)
	}
	e.buf = append(e.buf, ']')
}

func (e *jenc) exprField(key string, x Expr) {
	e.raw(key)
	e.expr(x)
}

func (e *jenc) blockField(key string, b *Block) {
	e.raw(key)
	if b == nil {
		e.raw("null")
		return
	}
	e.block(b)
}

func (e *jenc) block(b *Block) {
	e.enter()
	e.raw(`{"kind":"block","stmts":`)
	e.stmts(b.Stmts)
	e.close(b.Span)
	e.leave()
}

func (e *jenc) typeField(key string, t *TypeExpr) {
	e.raw(key)
	e.typ(t)
}

func (e *jenc) typ(t *TypeExpr) {
	if t == nil {
		e.raw("null")
		return
	}
	e.enter()
	e.str(`{"kind":"type","name":`, t.Name)
	e.raw(`,"args":[`)
	for i, a := range t.Args {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.typ(a)
	}
	e.buf = append(e.buf, ']')
	e.boolean(`,"optional":`, t.Optional)
	e.close(t.Span)
	e.leave()
}

func (e *jenc) param(prm *Param) {
	if prm == nil {
		e.raw("null")
		return
	}
	e.str(`{"kind":"param","name":`, prm.Name)
	e.typeField(`,"type":`, prm.Type)
	e.exprField(`,"default":`, prm.Default)
	e.close(prm.Span)
}

func (e *jenc) params(key string, ps []*Param) {
	e.raw(key)
	e.buf = append(e.buf, '[')
	for i, prm := range ps {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.param(prm)
	}
	e.buf = append(e.buf, ']')
}

func (e *jenc) args(as []*Arg) {
	e.raw(`,"args":[`)
	for i, a := range as {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(`{"kind":"arg","name":`, a.Name)
		e.exprField(`,"value":`, a.Value)
		e.close(a.Span)
	}
	e.buf = append(e.buf, ']')
}

func (e *jenc) stmt(s Stmt) {
	e.enter()
	switch n := s.(type) {
	case *ExprStmt:
		e.raw(`{"kind":"expr","x":`)
		e.expr(n.X)
		e.close(n.Span)
	case *LetStmt:
		e.str(`{"kind":"let","name":`, n.Name)
		e.typeField(`,"type":`, n.Type)
		e.exprField(`,"init":`, n.Init)
		e.boolean(`,"mutable":`, n.Mutable)
		e.boolean(`,"exported":`, n.Exported)
		e.close(n.Span)
	case *FnStmt:
		e.raw(`{"kind":"fn","decl":`)
		e.fnDecl(n.Decl)
		e.close(n.Span)
	case *AliasStmt:
		e.str(`{"kind":"alias","name":`, n.Name)
		e.raw(`,"target":`)
		e.cmdCall(n.Target)
		e.close(n.Span)
	case *UseStmt:
		e.str(`{"kind":"use","path":`, n.Path)
		e.close(n.Span)
	case *AssignStmt:
		e.exprField(`{"kind":"assign","target":`, n.Target)
		e.name(`,"op":`, n.Op.String())
		e.exprField(`,"value":`, n.Value)
		e.close(n.Span)
	case *ReturnStmt:
		e.exprField(`{"kind":"return","value":`, n.Value)
		e.close(n.Span)
	case *BreakStmt:
		e.raw(`{"kind":"break"`)
		e.close(n.Span)
	case *ContinueStmt:
		e.raw(`{"kind":"continue"`)
		e.close(n.Span)
	case *ForStmt:
		e.str(`{"kind":"for","var":`, n.Var)
		e.exprField(`,"iter":`, n.Iter)
		e.blockField(`,"body":`, n.Body)
		e.close(n.Span)
	case *WhileStmt:
		e.exprField(`{"kind":"while","cond":`, n.Cond)
		e.blockField(`,"body":`, n.Body)
		e.close(n.Span)
	case nil:
		e.raw("null")
	default:
		e.fail(fmt.Errorf("unknown statement node %T", s))
	}
	e.leave()
}

func (e *jenc) fnDecl(d *FnDecl) {
	if d == nil {
		e.raw("null")
		return
	}
	e.str(`{"kind":"fn_decl","name":`, d.Name)
	e.params(`,"params":`, d.Params)
	e.raw(`,"rest":`)
	e.param(d.Rest)
	e.typeField(`,"return":`, d.Return)
	e.blockField(`,"body":`, d.Body)
	e.str(`,"doc":`, d.Doc)
	e.boolean(`,"exported":`, d.Exported)
	e.close(d.Span)
}

func (e *jenc) expr(x Expr) {
	e.enter()
	switch n := x.(type) {
	case nil:
		e.raw("null")
	case *Var:
		e.str(`{"kind":"var","name":`, n.Name)
		e.close(n.Span)
	case *IntLit:
		e.int(`{"kind":"int","value":`, n.Value)
		e.close(n.Span)
	case *StrLit:
		e.str(`{"kind":"str","value":`, n.Value)
		e.boolean(`,"raw":`, n.Raw)
		e.close(n.Span)
	case *Field:
		e.exprField(`{"kind":"field","x":`, n.X)
		e.str(`,"name":`, n.Name)
		e.boolean(`,"optional":`, n.Optional)
		e.close(n.Span)
	case *MethodCall:
		e.exprField(`{"kind":"method_call","x":`, n.X)
		e.str(`,"name":`, n.Name)
		e.args(n.Args)
		e.boolean(`,"optional":`, n.Optional)
		e.blockField(`,"trailing":`, n.Trailing)
		e.close(n.Span)
	case *Call:
		e.exprField(`{"kind":"call","fn":`, n.Fn)
		e.args(n.Args)
		e.blockField(`,"trailing":`, n.Trailing)
		e.close(n.Span)
	case *Binary:
		e.name(`{"kind":"binary","op":`, n.Op.String())
		e.exprField(`,"l":`, n.L)
		e.exprField(`,"r":`, n.R)
		e.close(n.Span)
	case *Cmd:
		e.raw(`{"kind":"cmd","call":`)
		e.cmdCall(n.Call)
		e.close(n.Span)
	case *NullLit:
		e.raw(`{"kind":"null"`)
		e.close(n.Span)
	case *BoolLit:
		e.boolean(`{"kind":"bool","value":`, n.Value)
		e.close(n.Span)
	case *FloatLit:
		e.raw(`{"kind":"float","value":`)
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			e.quote(strconv.FormatFloat(n.Value, 'g', -1, 64))
		} else {
			e.buf = strconv.AppendFloat(e.buf, n.Value, 'g', -1, 64)
		}
		e.close(n.Span)
	case *StrInterp:
		e.raw(`{"kind":"str_interp","parts":[`)
		for i, part := range n.Parts {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(`{"kind":"str_part","lit":`, part.Lit)
			e.exprField(`,"x":`, part.X)
			e.buf = append(e.buf, '}')
		}
		e.buf = append(e.buf, ']')
		e.close(n.Span)
	case *SizeLit:
		e.int(`{"kind":"size","bytes":`, n.Bytes)
		e.close(n.Span)
	case *DurationLit:
		e.int(`{"kind":"duration","nanos":`, n.Nanos)
		e.close(n.Span)
	case *TimeLit:
		e.int(`{"kind":"time","nanos":`, n.Nanos)
		e.boolean(`,"has_seconds":`, n.HasSeconds)
		e.close(n.Span)
	case *DateTimeLit:
		e.str(`{"kind":"date_time","text":`, n.Text)
		e.close(n.Span)
	case *RegexLit:
		e.str(`{"kind":"regex","pattern":`, n.Pattern)
		e.close(n.Span)
	case *Index:
		e.exprField(`{"kind":"index","x":`, n.X)
		e.exprField(`,"index":`, n.Index)
		e.close(n.Span)
	case *List:
		e.exprs(`{"kind":"list","elems":`, n.Elems)
		e.close(n.Span)
	case *Record:
		e.raw(`{"kind":"record","fields":[`)
		for i, f := range n.Fields {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(`{"kind":"record_field","key":`, f.Key)
			e.exprField(`,"value":`, f.Value)
			e.close(f.Span)
		}
		e.buf = append(e.buf, ']')
		e.close(n.Span)
	case *Block:
		e.block(n)
	case *Lambda:
		e.params(`{"kind":"lambda","params":`, n.Params)
		e.exprField(`,"body":`, n.Body)
		e.boolean(`,"implicit":`, n.Implicit)
		e.close(n.Span)
	case *If:
		e.exprField(`{"kind":"if","cond":`, n.Cond)
		e.blockField(`,"then":`, n.Then)
		e.exprField(`,"else":`, n.Else)
		e.close(n.Span)
	case *Match:
		e.exprField(`{"kind":"match","subject":`, n.Subject)
		e.raw(`,"arms":[`)
		for i, a := range n.Arms {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.raw(`{"kind":"match_arm","patterns":[`)
			for j, pt := range a.Patterns {
				if j > 0 {
					e.buf = append(e.buf, ',')
				}
				e.pattern(pt)
			}
			e.buf = append(e.buf, ']')
			e.exprField(`,"guard":`, a.Guard)
			e.exprField(`,"body":`, a.Body)
			e.close(a.Span)
		}
		e.buf = append(e.buf, ']')
		e.close(n.Span)
	case *Try:
		e.blockField(`{"kind":"try","body":`, n.Body)
		e.str(`,"binder":`, n.Binder)
		e.blockField(`,"handler":`, n.Handler)
		e.close(n.Span)
	case *Catch:
		e.exprField(`{"kind":"catch","x":`, n.X)
		e.str(`,"binder":`, n.Binder)
		e.exprField(`,"handler":`, n.Handler)
		e.close(n.Span)
	case *With:
		e.raw(`{"kind":"with","entries":[`)
		for i, w := range n.Entries {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(`{"kind":"with_entry","key":`, w.Key)
			e.exprField(`,"value":`, w.Value)
			e.close(w.Span)
		}
		e.buf = append(e.buf, ']')
		e.blockField(`,"body":`, n.Body)
		e.close(n.Span)
	case *Spawn:
		e.blockField(`{"kind":"spawn","body":`, n.Body)
		e.close(n.Span)
	case *LangBlock:
		e.str(`{"kind":"lang_block","tool":`, n.Tool)
		e.str(`,"source":`, n.Source)
		e.close(n.Span)
	case *Unary:
		e.name(`{"kind":"unary","op":`, n.Op.String())
		e.exprField(`,"x":`, n.X)
		e.close(n.Span)
	case *Range:
		e.exprField(`{"kind":"range","lo":`, n.Lo)
		e.exprField(`,"hi":`, n.Hi)
		e.boolean(`,"inclusive":`, n.Inclusive)
		e.close(n.Span)
	default:
		e.fail(fmt.Errorf("unknown expression node %T", x))
	}
	e.leave()
}

func (e *jenc) cmdCall(c *CmdCall) {
	if c == nil {
		e.raw("null")
		return
	}
	e.raw(`{"kind":"cmd_call","env":[`)
	for i, ep := range c.Env {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(`{"kind":"env_prefix","name":`, ep.Name)
		e.raw(`,"value":`)
		e.cmdArg(ep.Value)
		e.close(ep.Span)
	}
	e.buf = append(e.buf, ']')
	e.boolean(`,"forced":`, c.Forced)
	e.raw(`,"head":`)
	e.cmdArg(c.Head)
	e.raw(`,"args":[`)
	for i, a := range c.Args {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.cmdArg(a)
	}
	e.raw(`],"redirects":[`)
	for i, r := range c.Redirects {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.name(`{"kind":"redirect","redirect_kind":`, r.Kind.String())
		e.raw(`,"target":`)
		e.cmdArg(r.Target)
		e.close(r.Span)
	}
	e.buf = append(e.buf, ']')
	e.boolean(`,"background":`, c.Background)
	e.blockField(`,"trailing":`, c.Trailing)
	e.close(c.Span)
}

func (e *jenc) cmdArg(a *CmdArg) {
	if a == nil {
		e.raw("null")
		return
	}
	e.enter()
	e.name(`{"kind":"cmd_arg","arg_kind":`, a.Kind.String())
	e.str(`,"text":`, a.Text)
	e.str(`,"name":`, a.Name)
	e.raw(`,"value":`)
	e.cmdArg(a.Value)
	e.exprField(`,"x":`, a.X)
	e.close(a.Span)
	e.leave()
}

func (e *jenc) pattern(pt Pattern) {
	e.enter()
	switch n := pt.(type) {
	case *BindPat:
		e.str(`{"kind":"bind_pat","name":`, n.Name)
		e.close(n.Span)
	case *WildcardPat:
		e.raw(`{"kind":"wildcard_pat"`)
		e.close(n.Span)
	case *LitPat:
		e.exprField(`{"kind":"lit_pat","value":`, n.Value)
		e.close(n.Span)
	case *RangePat:
		e.int(`{"kind":"range_pat","lo":`, n.Lo)
		e.int(`,"hi":`, n.Hi)
		e.boolean(`,"inclusive":`, n.Inclusive)
		e.close(n.Span)
	case *TypePat:
		e.str(`{"kind":"type_pat","type":`, n.Type)
		e.str(`,"binder":`, n.Binder)
		e.close(n.Span)
	case *RecordPat:
		e.raw(`{"kind":"record_pat","fields":[`)
		for i, f := range n.Fields {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(`{"kind":"record_pat_field","key":`, f.Key)
			e.raw(`,"pat":`)
			e.pattern(f.Pat)
			e.close(f.Span)
		}
		e.buf = append(e.buf, ']')
		e.close(n.Span)
	case *ListPat:
		e.raw(`{"kind":"list_pat","elems":[`)
		for i, el := range n.Elems {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.pattern(el)
		}
		e.buf = append(e.buf, ']')
		e.boolean(`,"has_rest":`, n.HasRest)
		e.str(`,"rest":`, n.Rest)
		e.close(n.Span)
	case nil:
		e.raw("null")
	default:
		e.fail(fmt.Errorf("unknown pattern node %T", pt))
	}
	e.leave()
}
