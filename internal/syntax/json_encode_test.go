package syntax

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendProgram checks that AppendProgram extends the caller's buffer
// with exactly what MarshalProgram writes.
func TestAppendProgram(t *testing.T) {
	prog, err := Parse(benchSource(), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendProgram([]byte("prefix:"), prog, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append([]byte("prefix:"), want...)) {
		t.Error("AppendProgram differs from MarshalProgram after the prefix")
	}
}

// TestAppendProgramLimit checks the byte limit: a tree whose JSON fits is
// written whole, one that does not stops with ErrTooLarge having written
// little more than the limit (a long string is refused before it is
// copied).
func TestAppendProgramLimit(t *testing.T) {
	prog, err := Parse(benchSource(), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AppendProgram(nil, prog, len(full)); err != nil {
		t.Errorf("limit of exactly its size: %v", err)
	}
	for _, limit := range []int{1, 100, len(full) / 2, len(full) - 1} {
		out, err := AppendProgram(make([]byte, 0, len(full)), prog, limit)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("limit %d: err = %v, want ErrTooLarge", limit, err)
		}
		if len(out) > limit+200 {
			t.Errorf("limit %d: wrote %d bytes before stopping", limit, len(out))
		}
	}
	huge := &Program{Stmts: []Stmt{&ExprStmt{X: &StrLit{Value: strings.Repeat("x", 1<<20)}}}}
	out, err := AppendProgram(nil, huge, 4096)
	if !errors.Is(err, ErrTooLarge) || cap(out) > 8192 {
		t.Errorf("long string: err %v, buffer grew to %d bytes", err, cap(out))
	}
}

// TestAppendProgramDepth checks that a tree deeper than MaxDepth, built by
// hand since neither the parser nor the decoder returns one, is an error
// rather than a deep recursion, for each kind of node that nests itself.
func TestAppendProgramDepth(t *testing.T) {
	deep := func(levels int, wrap func(Expr) Expr) *Program {
		var x Expr = &IntLit{Value: 1}
		for range levels {
			x = wrap(x)
		}
		return &Program{Stmts: []Stmt{&ExprStmt{X: x}}}
	}
	nests := map[string]func(Expr) Expr{
		"unary":  func(x Expr) Expr { return &Unary{Op: OpNeg, X: x} },
		"field":  func(x Expr) Expr { return &Field{X: x, Name: "a"} },
		"list":   func(x Expr) Expr { return &List{Elems: []Expr{x}} },
		"block":  func(x Expr) Expr { return &Block{Stmts: []Stmt{&ExprStmt{X: x}}} },
		"interp": func(x Expr) Expr { return &StrInterp{Parts: []StrPart{{X: x}}} },
		"cmd": func(x Expr) Expr {
			return &Cmd{Call: &CmdCall{Head: &CmdArg{Kind: ArgWord, Text: "a"}, Args: []*CmdArg{{Kind: ArgExpr, X: x}}}}
		},
	}
	for name, wrap := range nests {
		if _, err := MarshalProgram(deep(MaxDepth/4, wrap)); err != nil {
			t.Errorf("%s, %d levels: %v", name, MaxDepth/4, err)
		}
		_, err := MarshalProgram(deep(10*MaxDepth, wrap))
		if err == nil || !strings.Contains(err.Error(), "deeper than "+strconv.Itoa(MaxDepth)) {
			t.Errorf("%s, %d levels: err = %v", name, 10*MaxDepth, err)
		}
	}
	typ := &TypeExpr{Name: "t"}
	for range 10 * MaxDepth {
		typ = &TypeExpr{Name: "list", Args: []*TypeExpr{typ}}
	}
	prog := &Program{Stmts: []Stmt{&LetStmt{Name: "x", Type: typ, Init: &NullLit{}}}}
	if _, err := MarshalProgram(prog); err == nil {
		t.Error("a type nested 10*MaxDepth deep encoded")
	}
	arg := &CmdArg{Kind: ArgWord}
	for range 10 * MaxDepth {
		arg = &CmdArg{Kind: ArgLongFlag, Name: "f", Value: arg}
	}
	prog = &Program{Stmts: []Stmt{&ExprStmt{X: &Cmd{Call: &CmdCall{Head: arg}}}}}
	if _, err := MarshalProgram(prog); err == nil {
		t.Error("a flag value nested 10*MaxDepth deep encoded")
	}
}

// TestAppendInt checks the fast decimal writer against strconv.
func TestAppendInt(t *testing.T) {
	check := func(n int64) {
		if got, want := string(appendInt([]byte("x"), n)), "x"+strconv.FormatInt(n, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", n, got, want)
		}
	}
	for n := int64(-3); n < 100_000; n++ {
		check(n)
	}
	for p := int64(1); p < 1e18; p *= 10 {
		check(p - 1)
		check(p)
		check(p + 1)
		check(-p)
	}
	check(-1 << 63)
	check(1<<63 - 1)
}

// TestSpanText checks the span writer's three paths (numbers under 10000
// from digits4, under 100000 computed, others through appendInt) against
// strconv, for every number under 20000, every seventh under 100000, around each power of ten, in
// buffers that end just where the tail does and in roomy ones.
func TestSpanText(t *testing.T) {
	check := func(start, end int32, b []byte) {
		t.Helper()
		e := jenc{limit: math.MaxInt, digits4: digits4()}
		got := string(e.close(b, Span{Start: start, End: end}))
		want := string(b) + `,"span":{"start":` + strconv.Itoa(int(start)) + `,"end":` + strconv.Itoa(int(end)) + `}}`
		if got != want {
			t.Fatalf("close(%d, %d) = %q, want %q", start, end, got, want)
		}
	}
	roomy := make([]byte, 1, 64)
	roomy[0] = '{'
	for n := int32(0); n < 100_000; n++ {
		if n >= 20_000 && n%7 != 0 {
			continue
		}
		check(n, n+3, roomy)
		check(3, n, []byte("{"))
	}
	for p := int64(1); p < 1<<31; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1} {
			if v <= math.MaxInt32 {
				check(int32(v), int32(v), roomy)
				check(0, int32(v), nil)
				check(int32(v), 7, nil)
			}
		}
	}
	check(-1, 5, roomy)
	check(5, -1, nil)
	check(math.MaxInt32, math.MaxInt32, roomy)
	check(math.MinInt32, 0, nil)
}

// refQuote is quote's contract written plainly, rune by rune: '"', '\\'
// and control characters escaped, invalid UTF-8 as \ufffd, nothing else
// changed.
func refQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteString(`\ufffd`)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzQuote checks quote against refQuote, with buffers that have room for
// its short-string path and buffers that do not.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "x", "·it", "a\"b", "tab\there", "\x00\x1f\x7f", "\xff", "héllo wörld", strings.Repeat("n", 24), strings.Repeat("n", 25), strings.Repeat("é", 12) + "\n"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, s string, room uint8) {
		e := jenc{limit: math.MaxInt, digits4: digits4()}
		b := make([]byte, 3, 3+int(room))
		copy(b, "k:[")
		if got, want := string(e.quote(b, s)), "k:["+refQuote(s); got != want {
			t.Fatalf("quote(%q) with room %d = %q, want %q", s, room, got, want)
		}
	})
}
