package syntax

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"sync"
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
	e := jenc{limit: limit, digits4: digits4()}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(encodeBailout)
			if !ok {
				panic(r)
			}
			out, err = b.buf, fmt.Errorf("marshal program: %w", b.err)
		}
	}()
	b := append(dst, `{"stmts":`...)
	b = e.stmts(b, p.Stmts)
	b = append(b, '}')
	e.check(b)
	return b, nil
}

// jenc writes JSON. The buffer is passed to and returned from every method
// rather than kept in the struct, so that it stays in registers along the
// walk instead of being stored and reloaded at every append. It checks the
// length against limit once per node and before each string, so it
// overshoots by at most one node's fixed text; errors unwind to
// AppendProgram as an encodeBailout carrying the buffer.
type jenc struct {
	limit   int
	depth   int            // node functions nested, at most MaxDepth
	digits4 *[10000]uint32 // digits4(), fetched once per encoding
}

type encodeBailout struct {
	err error
	buf []byte
}

func (e *jenc) fail(b []byte, err error) { panic(encodeBailout{err, b}) }

// check fails once the buffer is over the limit. It and enter are small
// enough to be inlined; their failures are calls of their own.
func (e *jenc) check(b []byte) {
	if len(b) > e.limit {
		e.tooLarge(b)
	}
}

func (e *jenc) tooLarge(b []byte) {
	e.fail(b, fmt.Errorf("%w of %d bytes", ErrTooLarge, e.limit))
}

// enter and leave bracket the encoding of a node that may hold nodes of
// its own kind, bounding the recursion.
func (e *jenc) enter(b []byte) {
	if e.depth++; e.depth > MaxDepth {
		e.tooDeep(b)
	}
}

func (e *jenc) tooDeep(b []byte) {
	e.fail(b, fmt.Errorf("tree nested deeper than %d nodes", MaxDepth))
}

func (e *jenc) leave() { e.depth-- }

// close ends a node object with its span. Spans are half the encoder's
// work, so the whole tail is written in place into room made once: its
// fixed text in word stores, and each number as one store of its digits
// looked up in digits4, which covers every span of a source under 10 kB.
// Other spans take closeWide.
func (e *jenc) close(b []byte, s Span) []byte {
	st, en := uint32(s.Start), uint32(s.End)
	if max(st, en) >= 10000 { // negative ones too
		return e.closeWide(b, s)
	}
	// Each number's word store may write 4 bytes past its 4 digits.
	const room = len(spanHead) + 4 + len(spanMid) + 4 + 8
	if cap(b)-len(b) < room {
		b = append(b, make([]byte, room)...)[:len(b)]
	}
	n := len(b)
	t := (*[room]byte)(b[n : n+room]) // one bounds check for the stores below
	binary.LittleEndian.PutUint64(t[0:], spanHead0)
	binary.LittleEndian.PutUint64(t[8:], spanHead1)
	t[16] = ':'
	d := e.digits4[st]
	binary.LittleEndian.PutUint64(t[17:], uint64(d)|digitsPad)
	i := 17 + (bits.Len32(d)+7)>>3                 // at most 21
	binary.LittleEndian.PutUint64(t[i:], spanMid0) // its eighth byte is overwritten
	i += len(spanMid)
	d = e.digits4[en]
	binary.LittleEndian.PutUint64(t[i:], uint64(d)|digitsPad)
	i += (bits.Len32(d) + 7) >> 3
	binary.LittleEndian.PutUint16(t[i:], '}'|'}'<<8)
	b = b[:n+i+2]
	e.check(b)
	return b
}

// digits4 holds the decimal digits of each number under 10000 as ASCII
// bytes in a little-endian word, without leading zeros: 42 is '4' | '2'<<8.
// A number's width is its word's significant bytes. The 40 kB table is
// built the first time a tree is encoded, not at every start of every
// binary that links the parser.
var digits4 = sync.OnceValue(func() *[10000]uint32 {
	t := new([10000]uint32)
	for i := range 10 {
		t[i] = '0' + uint32(i)
	}
	for i := 10; i < len(t); i++ {
		hi := t[i/10]
		t[i] = hi | ('0'+uint32(i%10))<<((bits.Len32(hi)+7)&^7)
	}
	return t
})

// digitsPad fills the four bytes of a digits4 word store past its digits,
// which the next store overwrites or which lie past the slice's end. Were
// they known to be zero, the compiler would store the digits and the zeros
// separately.
const digitsPad = 0x2020_2020_0000_0000

// closeWide is close for a span with a number of at least 10000: each
// number under 100000 (every span of a source under 100 kB) is one word
// store of its digits computed without a branch on its width. Other spans
// take closeLong.
func (e *jenc) closeWide(b []byte, s Span) []byte {
	st, en := uint32(s.Start), uint32(s.End)
	if st >= 100000 || en >= 100000 { // negative ones too
		return e.closeLong(b, s)
	}
	// Each number's word store may write 3 bytes past its 5 digits.
	const room = len(spanHead) + 5 + len(spanMid) + 5 + 8
	if cap(b)-len(b) < room {
		b = append(b, make([]byte, room)...)[:len(b)]
	}
	n := len(b)
	b = b[:n+room]
	binary.LittleEndian.PutUint64(b[n:], spanHead0)
	binary.LittleEndian.PutUint64(b[n+8:], spanHead1)
	b[n+16] = ':'
	n += len(spanHead)
	top := st / 10000
	rest := st - top*10000
	x := uint64('0'+top) | uint64(digitPairs16[rest/100])<<8 | uint64(digitPairs16[rest%100])<<24 | spanPad
	w := 1 + b2i(st >= 10) + b2i(st >= 100) + b2i(st >= 1000) + b2i(st >= 10000)
	binary.LittleEndian.PutUint64(b[n:], x>>((5-w)*8))
	n += w
	binary.LittleEndian.PutUint64(b[n:], spanMid0) // its eighth byte is overwritten
	n += len(spanMid)
	top = en / 10000
	rest = en - top*10000
	x = uint64('0'+top) | uint64(digitPairs16[rest/100])<<8 | uint64(digitPairs16[rest%100])<<24 | spanPad
	w = 1 + b2i(en >= 10) + b2i(en >= 100) + b2i(en >= 1000) + b2i(en >= 10000)
	binary.LittleEndian.PutUint64(b[n:], x>>((5-w)*8))
	n += w
	binary.LittleEndian.PutUint16(b[n:], '}'|'}'<<8)
	b = b[:n+2]
	e.check(b)
	return b
}

// spanPad fills the three bytes of a digit word past its five digits,
// which the next store overwrites or which lie past the slice's end. Were
// they known to be zero, the compiler would split the word store into a
// byte, a 4-byte and three zero-byte stores.
const spanPad = 0x2020_2000_0000_0000

// closeLong is close for a span with a number that is negative (which no
// parsed tree has) or at least 100000.
func (e *jenc) closeLong(b []byte, s Span) []byte {
	b = append(b, spanHead...)
	b = appendInt(b, int64(s.Start))
	b = append(b, spanMid...)
	b = appendInt(b, int64(s.End))
	b = append(b, "}}"...)
	e.check(b)
	return b
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
	if u >= 100000 {
		return putDigitsLong(b, n, u)
	}
	top := u / 10000
	rest := u - top*10000
	x := uint64('0'+top) | uint64(digitPairs16[rest/100])<<8 | uint64(digitPairs16[rest%100])<<24 | spanPad
	w := 1 + b2i(u >= 10) + b2i(u >= 100) + b2i(u >= 1000) + b2i(u >= 10000) // no branch to mispredict
	binary.LittleEndian.PutUint64(b[n:], x>>((5-w)*8))
	return n + w
}

// putDigitsLong is putDigits for u >= 100000.
func putDigitsLong(b []byte, n int, u uint32) int {
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

// appendLit appends s, a constant, to b. The compiler calls memmove for a
// constant longer than 16 bytes, not knowing the buffer cannot overlap it;
// appendLit copies one of 17 to 32 bytes in two 16-byte moves instead, the
// second overlapping the first, when b has room (call sites with a key in
// that range use it instead of the key-taking helpers, which are too large
// to inline with it). It is meant to be inlined, where len(s) is a constant
// and the tests on it fold away.
func appendLit(b []byte, s string) []byte {
	n := len(b)
	if len(s) <= 16 || len(s) > 32 || cap(b)-n < len(s) {
		return append(b, s...)
	}
	b = b[:n+len(s)]
	copy(b[n:n+16], s[:16])
	copy(b[n+len(s)-16:n+len(s)], s[len(s)-16:])
	return b
}

// str appends key (a literal `,"name":`) and s as a JSON string.
func (e *jenc) str(b []byte, key, s string) []byte {
	b = append(b, key...)
	return e.quote(b, s)
}

func (e *jenc) boolean(b []byte, key string, v bool) []byte {
	b = append(b, key...)
	return appendBool(b, v)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func (e *jenc) int(b []byte, key string, v int64) []byte {
	b = append(b, key...)
	return appendInt(b, v)
}

// name appends key and a name from a fixed table (an operator or a kind),
// which never needs escaping.
func (e *jenc) name(b []byte, key, s string) []byte {
	b = append(b, key...)
	return appendName(b, s)
}

func appendName(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plain marks the bytes a JSON string holds as they are: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// quickQuote is the longest string quote copies as it checks it.
const quickQuote = 24

// quote appends s as a JSON string: '"', '\\' and control characters are
// escaped, invalid UTF-8 becomes U+FFFD, nothing else is changed.
func (e *jenc) quote(b []byte, s string) []byte {
	if len(b)+len(s) > e.limit {
		e.tooLarge(b)
	}
	// Most strings are short names that need no escape: they are copied
	// byte by byte as they are checked, into room made once, instead of
	// being scanned and then copied by a call of memmove.
	if n := len(b); len(s) <= quickQuote && cap(b)-n >= quickQuote+2 {
		t := (*[quickQuote + 2]byte)(b[n : n+quickQuote+2])
		t[0] = '"'
		i := 0
		for ; i < len(s) && plain[s[i]]; i++ {
			t[1+i] = s[i]
		}
		if i == len(s) {
			t[1+i] = '"'
			return b[:n+len(s)+2]
		}
	}
	b = append(b, '"')
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
	return append(b, '"')
}

func (e *jenc) stmts(b []byte, ss []Stmt) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.stmt(b, s)
	}
	return append(b, ']')
}

func (e *jenc) exprList(b []byte, xs []Expr) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.expr(b, x)
	}
	return append(b, ']')
}

func (e *jenc) exprField(b []byte, key string, x Expr) []byte {
	b = append(b, key...)
	return e.expr(b, x)
}

func (e *jenc) blockField(b []byte, key string, blk *Block) []byte {
	b = append(b, key...)
	return e.blockOrNull(b, blk)
}

func (e *jenc) blockOrNull(b []byte, blk *Block) []byte {
	if blk == nil {
		return append(b, "null"...)
	}
	return e.block(b, blk)
}

func (e *jenc) block(b []byte, blk *Block) []byte {
	e.enter(b)
	b = appendLit(b, `{"kind":"block","stmts":`)
	b = e.stmts(b, blk.Stmts)
	b = e.close(b, blk.Span)
	e.leave()
	return b
}

func (e *jenc) typeField(b []byte, key string, t *TypeExpr) []byte {
	b = append(b, key...)
	return e.typ(b, t)
}

func (e *jenc) typ(b []byte, t *TypeExpr) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	e.enter(b)
	b = appendLit(b, `{"kind":"type","name":`)
	b = e.quote(b, t.Name)
	b = append(b, `,"args":[`...)
	for i, a := range t.Args {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.typ(b, a)
	}
	b = append(b, ']')
	b = e.boolean(b, `,"optional":`, t.Optional)
	b = e.close(b, t.Span)
	e.leave()
	return b
}

func (e *jenc) param(b []byte, prm *Param) []byte {
	if prm == nil {
		return append(b, "null"...)
	}
	b = appendLit(b, `{"kind":"param","name":`)
	b = e.quote(b, prm.Name)
	b = e.typeField(b, `,"type":`, prm.Type)
	b = e.exprField(b, `,"default":`, prm.Default)
	return e.close(b, prm.Span)
}

func (e *jenc) params(b []byte, key string, ps []*Param) []byte {
	b = append(b, key...)
	return e.paramList(b, ps)
}

func (e *jenc) paramList(b []byte, ps []*Param) []byte {
	b = append(b, '[')
	for i, prm := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.param(b, prm)
	}
	return append(b, ']')
}

func (e *jenc) args(b []byte, as []*Arg) []byte {
	b = append(b, `,"args":[`...)
	for i, a := range as {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLit(b, `{"kind":"arg","name":`)
		b = e.quote(b, a.Name)
		b = e.exprField(b, `,"value":`, a.Value)
		b = e.close(b, a.Span)
	}
	return append(b, ']')
}

func (e *jenc) stmt(b []byte, s Stmt) []byte {
	e.enter(b)
	switch n := s.(type) {
	case *ExprStmt:
		b = appendLit(b, `{"kind":"expr","x":`)
		b = e.expr(b, n.X)
		b = e.close(b, n.Span)
	case *LetStmt:
		b = appendLit(b, `{"kind":"let","name":`)
		b = e.quote(b, n.Name)
		b = e.typeField(b, `,"type":`, n.Type)
		b = e.exprField(b, `,"init":`, n.Init)
		b = e.boolean(b, `,"mutable":`, n.Mutable)
		b = e.boolean(b, `,"exported":`, n.Exported)
		b = e.close(b, n.Span)
	case *FnStmt:
		b = appendLit(b, `{"kind":"fn","decl":`)
		b = e.fnDecl(b, n.Decl)
		b = e.close(b, n.Span)
	case *AliasStmt:
		b = appendLit(b, `{"kind":"alias","name":`)
		b = e.quote(b, n.Name)
		b = append(b, `,"target":`...)
		b = e.cmdCall(b, n.Target)
		b = e.close(b, n.Span)
	case *UseStmt:
		if n.As != "" {
			b = appendLit(b, `{"kind":"use_as","path":`)
			b = e.quote(b, n.Path)
			b = e.str(b, `,"as":`, n.As)
		} else {
			b = appendLit(b, `{"kind":"use","path":`)
			b = e.quote(b, n.Path)
		}
		b = e.close(b, n.Span)
	case *AssignStmt:
		b = appendLit(b, `{"kind":"assign","target":`)
		b = e.expr(b, n.Target)
		b = e.name(b, `,"op":`, n.Op.String())
		b = e.exprField(b, `,"value":`, n.Value)
		b = e.close(b, n.Span)
	case *ReturnStmt:
		b = appendLit(b, `{"kind":"return","value":`)
		b = e.expr(b, n.Value)
		b = e.close(b, n.Span)
	case *BreakStmt:
		b = append(b, `{"kind":"break"`...)
		b = e.close(b, n.Span)
	case *ContinueStmt:
		b = appendLit(b, `{"kind":"continue"`)
		b = e.close(b, n.Span)
	case *ForStmt:
		b = appendLit(b, `{"kind":"for","var":`)
		b = e.quote(b, n.Var)
		b = e.exprField(b, `,"iter":`, n.Iter)
		b = e.blockField(b, `,"body":`, n.Body)
		b = e.close(b, n.Span)
	case *WhileStmt:
		b = appendLit(b, `{"kind":"while","cond":`)
		b = e.expr(b, n.Cond)
		b = e.blockField(b, `,"body":`, n.Body)
		b = e.close(b, n.Span)
	case nil:
		b = append(b, "null"...)
	default:
		e.fail(b, fmt.Errorf("unknown statement node %T", s))
	}
	e.leave()
	return b
}

func (e *jenc) fnDecl(b []byte, d *FnDecl) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	b = appendLit(b, `{"kind":"fn_decl","name":`)
	b = e.quote(b, d.Name)
	b = e.params(b, `,"params":`, d.Params)
	b = append(b, `,"rest":`...)
	b = e.param(b, d.Rest)
	b = e.typeField(b, `,"return":`, d.Return)
	b = e.blockField(b, `,"body":`, d.Body)
	b = e.str(b, `,"doc":`, d.Doc)
	b = e.boolean(b, `,"exported":`, d.Exported)
	return e.close(b, d.Span)
}

func (e *jenc) expr(b []byte, x Expr) []byte {
	e.enter(b)
	switch n := x.(type) {
	case nil:
		b = append(b, "null"...)
	case *Var:
		b = appendLit(b, `{"kind":"var","name":`)
		b = e.quote(b, n.Name)
		b = e.close(b, n.Span)
	case *IntLit:
		b = appendLit(b, `{"kind":"int","value":`)
		b = appendInt(b, n.Value)
		b = e.close(b, n.Span)
	case *StrLit:
		b = appendLit(b, `{"kind":"str","value":`)
		b = e.quote(b, n.Value)
		b = e.boolean(b, `,"raw":`, n.Raw)
		b = e.close(b, n.Span)
	case *Field:
		b = appendLit(b, `{"kind":"field","x":`)
		b = e.expr(b, n.X)
		b = e.str(b, `,"name":`, n.Name)
		b = e.boolean(b, `,"optional":`, n.Optional)
		b = e.close(b, n.Span)
	case *MethodCall:
		b = appendLit(b, `{"kind":"method_call","x":`)
		b = e.expr(b, n.X)
		b = e.str(b, `,"name":`, n.Name)
		b = e.args(b, n.Args)
		b = e.boolean(b, `,"optional":`, n.Optional)
		b = e.blockField(b, `,"trailing":`, n.Trailing)
		b = e.close(b, n.Span)
	case *Call:
		b = appendLit(b, `{"kind":"call","fn":`)
		b = e.expr(b, n.Fn)
		b = e.args(b, n.Args)
		b = e.blockField(b, `,"trailing":`, n.Trailing)
		b = e.close(b, n.Span)
	case *Binary:
		b = appendLit(b, `{"kind":"binary","op":`)
		b = appendName(b, n.Op.String())
		b = e.exprField(b, `,"l":`, n.L)
		b = e.exprField(b, `,"r":`, n.R)
		b = e.close(b, n.Span)
	case *Cmd:
		b = appendLit(b, `{"kind":"cmd","call":`)
		b = e.cmdCall(b, n.Call)
		b = e.close(b, n.Span)
	case *NullLit:
		b = append(b, `{"kind":"null"`...)
		b = e.close(b, n.Span)
	case *BoolLit:
		b = appendLit(b, `{"kind":"bool","value":`)
		b = appendBool(b, n.Value)
		b = e.close(b, n.Span)
	case *FloatLit:
		b = appendLit(b, `{"kind":"float","value":`)
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			b = e.quote(b, strconv.FormatFloat(n.Value, 'g', -1, 64))
		} else {
			b = strconv.AppendFloat(b, n.Value, 'g', -1, 64)
		}
		b = e.close(b, n.Span)
	case *StrInterp:
		b = appendLit(b, `{"kind":"str_interp","parts":[`)
		for i, part := range n.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLit(b, `{"kind":"str_part","lit":`)
			b = e.quote(b, part.Lit)
			b = e.exprField(b, `,"x":`, part.X)
			b = append(b, '}')
		}
		b = append(b, ']')
		b = e.close(b, n.Span)
	case *SizeLit:
		b = appendLit(b, `{"kind":"size","bytes":`)
		b = appendInt(b, n.Bytes)
		b = e.close(b, n.Span)
	case *DurationLit:
		b = appendLit(b, `{"kind":"duration","nanos":`)
		b = appendInt(b, n.Nanos)
		b = e.close(b, n.Span)
	case *TimeLit:
		b = appendLit(b, `{"kind":"time","nanos":`)
		b = appendInt(b, n.Nanos)
		b = e.boolean(b, `,"has_seconds":`, n.HasSeconds)
		b = e.close(b, n.Span)
	case *DateTimeLit:
		b = appendLit(b, `{"kind":"date_time","text":`)
		b = e.quote(b, n.Text)
		b = e.close(b, n.Span)
	case *PathLit:
		b = appendLit(b, `{"kind":"path","path":`)
		b = e.quote(b, n.Path)
		b = e.close(b, n.Span)
	case *RegexLit:
		b = appendLit(b, `{"kind":"regex","pattern":`)
		b = e.quote(b, n.Pattern)
		b = e.close(b, n.Span)
	case *Index:
		b = appendLit(b, `{"kind":"index","x":`)
		b = e.expr(b, n.X)
		b = e.exprField(b, `,"index":`, n.Index)
		b = e.close(b, n.Span)
	case *List:
		b = appendLit(b, `{"kind":"list","elems":`)
		b = e.exprList(b, n.Elems)
		b = e.close(b, n.Span)
	case *Record:
		b = appendLit(b, `{"kind":"record","fields":[`)
		for i, f := range n.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLit(b, `{"kind":"record_field","key":`)
			b = e.quote(b, f.Key)
			b = e.exprField(b, `,"value":`, f.Value)
			b = e.close(b, f.Span)
		}
		b = append(b, ']')
		b = e.close(b, n.Span)
	case *Block:
		b = e.block(b, n)
	case *Lambda:
		b = appendLit(b, `{"kind":"lambda","params":`)
		b = e.paramList(b, n.Params)
		b = e.exprField(b, `,"body":`, n.Body)
		b = e.boolean(b, `,"implicit":`, n.Implicit)
		b = e.close(b, n.Span)
	case *If:
		b = appendLit(b, `{"kind":"if","cond":`)
		b = e.expr(b, n.Cond)
		b = e.blockField(b, `,"then":`, n.Then)
		b = e.exprField(b, `,"else":`, n.Else)
		b = e.close(b, n.Span)
	case *Match:
		b = appendLit(b, `{"kind":"match","subject":`)
		b = e.expr(b, n.Subject)
		b = append(b, `,"arms":[`...)
		for i, a := range n.Arms {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLit(b, `{"kind":"match_arm","patterns":[`)
			for j, pt := range a.Patterns {
				if j > 0 {
					b = append(b, ',')
				}
				b = e.pattern(b, pt)
			}
			b = append(b, ']')
			b = e.exprField(b, `,"guard":`, a.Guard)
			b = e.exprField(b, `,"body":`, a.Body)
			b = e.close(b, a.Span)
		}
		b = append(b, ']')
		b = e.close(b, n.Span)
	case *Try:
		b = appendLit(b, `{"kind":"try","body":`)
		b = e.blockOrNull(b, n.Body)
		b = e.str(b, `,"binder":`, n.Binder)
		b = e.blockField(b, `,"handler":`, n.Handler)
		b = e.close(b, n.Span)
	case *Catch:
		b = appendLit(b, `{"kind":"catch","x":`)
		b = e.expr(b, n.X)
		b = e.str(b, `,"binder":`, n.Binder)
		b = e.exprField(b, `,"handler":`, n.Handler)
		b = e.close(b, n.Span)
	case *With:
		b = appendLit(b, `{"kind":"with","entries":[`)
		for i, w := range n.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLit(b, `{"kind":"with_entry","key":`)
			b = e.quote(b, w.Key)
			b = e.exprField(b, `,"value":`, w.Value)
			b = e.close(b, w.Span)
		}
		b = append(b, ']')
		b = e.blockField(b, `,"body":`, n.Body)
		b = e.close(b, n.Span)
	case *Spawn:
		b = appendLit(b, `{"kind":"spawn","body":`)
		b = e.blockOrNull(b, n.Body)
		b = e.close(b, n.Span)
	case *LangBlock:
		b = appendLit(b, `{"kind":"lang_block","tool":`)
		b = e.quote(b, n.Tool)
		b = e.str(b, `,"source":`, n.Source)
		b = e.close(b, n.Span)
	case *Unary:
		b = appendLit(b, `{"kind":"unary","op":`)
		b = appendName(b, n.Op.String())
		b = e.exprField(b, `,"x":`, n.X)
		b = e.close(b, n.Span)
	case *Range:
		b = appendLit(b, `{"kind":"range","lo":`)
		b = e.expr(b, n.Lo)
		b = e.exprField(b, `,"hi":`, n.Hi)
		b = e.boolean(b, `,"inclusive":`, n.Inclusive)
		b = e.close(b, n.Span)
	default:
		e.fail(b, fmt.Errorf("unknown expression node %T", x))
	}
	e.leave()
	return b
}

func (e *jenc) cmdCall(b []byte, c *CmdCall) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = appendLit(b, `{"kind":"cmd_call","env":[`)
	for i, ep := range c.Env {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLit(b, `{"kind":"env_prefix","name":`)
		b = e.quote(b, ep.Name)
		b = append(b, `,"value":`...)
		b = e.cmdArg(b, ep.Value)
		b = e.close(b, ep.Span)
	}
	b = append(b, ']')
	b = e.boolean(b, `,"forced":`, c.Forced)
	b = append(b, `,"head":`...)
	b = e.cmdArg(b, c.Head)
	b = append(b, `,"args":[`...)
	for i, a := range c.Args {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.cmdArg(b, a)
	}
	b = append(b, `],"redirects":[`...)
	for i, r := range c.Redirects {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.name(b, `{"kind":"redirect","redirect_kind":`, r.Kind.String())
		b = append(b, `,"target":`...)
		b = e.cmdArg(b, r.Target)
		b = e.close(b, r.Span)
	}
	b = append(b, ']')
	b = e.boolean(b, `,"background":`, c.Background)
	b = e.blockField(b, `,"trailing":`, c.Trailing)
	return e.close(b, c.Span)
}

func (e *jenc) cmdArg(b []byte, a *CmdArg) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	e.enter(b)
	b = appendLit(b, `{"kind":"cmd_arg","arg_kind":`)
	b = appendName(b, a.Kind.String())
	b = e.str(b, `,"text":`, a.Text)
	b = e.str(b, `,"name":`, a.Name)
	b = append(b, `,"value":`...)
	b = e.cmdArg(b, a.Value)
	b = e.exprField(b, `,"x":`, a.X)
	b = e.close(b, a.Span)
	e.leave()
	return b
}

func (e *jenc) pattern(b []byte, pt Pattern) []byte {
	e.enter(b)
	switch n := pt.(type) {
	case *BindPat:
		b = appendLit(b, `{"kind":"bind_pat","name":`)
		b = e.quote(b, n.Name)
		b = e.close(b, n.Span)
	case *WildcardPat:
		b = appendLit(b, `{"kind":"wildcard_pat"`)
		b = e.close(b, n.Span)
	case *LitPat:
		b = appendLit(b, `{"kind":"lit_pat","value":`)
		b = e.expr(b, n.Value)
		b = e.close(b, n.Span)
	case *RangePat:
		b = appendLit(b, `{"kind":"range_pat","lo":`)
		b = appendInt(b, n.Lo)
		b = e.int(b, `,"hi":`, n.Hi)
		b = e.boolean(b, `,"inclusive":`, n.Inclusive)
		b = e.close(b, n.Span)
	case *TypePat:
		b = appendLit(b, `{"kind":"type_pat","type":`)
		b = e.quote(b, n.Type)
		b = e.str(b, `,"binder":`, n.Binder)
		b = e.close(b, n.Span)
	case *RecordPat:
		b = appendLit(b, `{"kind":"record_pat","fields":[`)
		for i, f := range n.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.str(b, `{"kind":"record_pat_field","key":`, f.Key)
			b = append(b, `,"pat":`...)
			b = e.pattern(b, f.Pat)
			b = e.close(b, f.Span)
		}
		b = append(b, ']')
		b = e.close(b, n.Span)
	case *ListPat:
		b = appendLit(b, `{"kind":"list_pat","elems":[`)
		for i, el := range n.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.pattern(b, el)
		}
		b = append(b, ']')
		b = e.boolean(b, `,"has_rest":`, n.HasRest)
		b = e.str(b, `,"rest":`, n.Rest)
		b = e.close(b, n.Span)
	case nil:
		b = append(b, "null"...)
	default:
		e.fail(b, fmt.Errorf("unknown pattern node %T", pt))
	}
	e.leave()
	return b
}
