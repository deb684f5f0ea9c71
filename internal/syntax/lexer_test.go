package syntax

import (
	"strings"
	"testing"
)

// lexAll lexes src from the start in one mode and renders kind(text) tokens.
func lexAll(src string, m mode) string {
	var parts []string
	pos := 0
	for i := 0; i < 100; i++ {
		t := lex(src, pos, m)
		if t.kind == tEOF {
			break
		}
		parts = append(parts, t.kind.String()+"("+src[t.start:t.end]+")")
		if t.kind == tIllegal {
			break
		}
		pos = t.end
	}
	return strings.Join(parts, " ")
}

func TestLexModes(t *testing.T) {
	tests := []struct {
		src  string
		m    mode
		want string
	}{
		{"git --force -abc -- - x", exprMode, "Ident(git) Minus(-) Minus(-) Ident(force) Minus(-) Ident(abc) Minus(-) Minus(-) Minus(-) Ident(x)"},
		{"git --force -abc -- - x", cmdMode, "Word(git) LongFlag(--force) ShortFlag(-abc) DashDash(--) Dash(-) Word(x)"},
		{"./x *.rs a>b", cmdMode, "Word(./x) Word(*.rs) Word(a) Gt(>) Word(b)"},
		{"a >> b < c &", cmdMode, "Word(a) Append(>>) Word(b) Lt(<) Word(c) Amp(&)"},
		{"a && b || c", cmdMode, "Word(a) AndAnd(&&) Word(b) OrOr(||) Word(c)"},
		{"x.y?.z ?? 1..=2 ... ..", exprMode, "Ident(x) Dot(.) Ident(y) QuestionDot(?.) Ident(z) Coalesce(??) Int(1) DotDotEq(..=) Int(2) Ellipsis(...) DotDot(..)"},
		{"a => b -> c == d != e <= f >= g", exprMode, "Ident(a) FatArrow(=>) Ident(b) Arrow(->) Ident(c) EqEq(==) Ident(d) NotEq(!=) Ident(e) Le(<=) Ident(f) Ge(>=) Ident(g)"},
		{"x += 1 -= 2 *= 3 /= 4", exprMode, "Ident(x) PlusEq(+=) Int(1) MinusEq(-=) Int(2) StarEq(*=) Int(3) SlashEq(/=) Int(4)"},
		{"1 1.5 2e3 3kb 4ms 09:30 7:05pm 0b101 0b", exprMode, "Int(1) Float(1.5) Float(2e3) Size(3kb) Duration(4ms) Time(09:30) Time(7:05pm) Int(0b101) Size(0b)"},
		{"5.len() 1..5 30d.ago", exprMode, "Int(5) Dot(.) Ident(len) LParen(() RParen()) Int(1) DotDot(..) Int(5) Duration(30d) Dot(.) Ident(ago)"},
		{`t"2026" re"a\"b" "x{"}"}y" 'r'`, exprMode, `DateTime(t"2026") Regex(re"a\"b") Str("x{"}"}y") Str('r')`},
		{"let if else match in catch", exprMode, "let(let) if(if) else(else) match(match) in(in) catch(catch)"},
		{"a # comment\nb", exprMode, "Ident(a) Newline(\n) Ident(b)"},
		{"a \\\n b", exprMode, "Ident(a) Ident(b)"},
		{"echo ver#2 #c", cmdMode, "Word(echo) Word(ver#2)"},
		{"stash@{0} }", cmdMode, "Word(stash@{0}) RBrace(})"},
		{"f(a, b)", cmdArgMode, "Word(f) LParen(() Word(a) Comma(,) Word(b) RParen())"},
		{"f(a, b)", cmdMode, "Word(f) LParen(() Word(a,) Word(b) RParen())"},
		{"x | y", cmdMode, "Word(x) Illegal(|)"},
		{"x | y", exprMode, "Ident(x) Pipe(|) Ident(y)"},
		{"echo 2>f", cmdMode, "Word(echo) Illegal(2>)"},
		{"caf\u00e9 = 1", exprMode, "Ident(caf\u00e9) Assign(=) Int(1)"},
	}
	for _, tt := range tests {
		if got := lexAll(tt.src, tt.m); got != tt.want {
			t.Errorf("lex(%q, %d)\n got: %s\nwant: %s", tt.src, tt.m, got, tt.want)
		}
	}
}

// TestRelexSamePosition checks that one offset lexes differently by mode.
func TestRelexSamePosition(t *testing.T) {
	src := "x --all"
	e := lex(src, 2, exprMode)
	c := lex(src, 2, cmdMode)
	if e.kind != tMinus || c.kind != tLongFlag || c.end != len(src) {
		t.Fatalf("expr=%v cmd=%v", e.kind, c.kind)
	}
	// Lexing is pure: the same query gives the same answer.
	if again := lex(src, 2, exprMode); again != e {
		t.Fatalf("lexing is not deterministic: %+v vs %+v", again, e)
	}
}

func TestDedent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\n    a\n    b\n    ", "a\nb"},
		{"\n  a\n    b\n  ", "a\n  b"},
		{"\n\ta\n\n\tb\n", "a\n\nb"},
		{"one line", "one line"},
		{"\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := dedentRaw(tt.in); got != tt.want {
			t.Errorf("dedentRaw(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUnicodeNames checks that names starting with or containing non-ASCII
// letters lex as one identifier.
func TestUnicodeNames(t *testing.T) {
	for _, name := range []string{"é", "éa", "aé", "naïve_1", "日本"} {
		prog, err := Parse("let "+name+" = 1\n"+name, ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		v, ok := prog.Stmts[1].(*ExprStmt).X.(*Var)
		if !ok || v.Name != name {
			t.Errorf("%q: second statement is %#v, want Var %q", name, prog.Stmts[1].(*ExprStmt).X, name)
		}
	}
}

// TestKeywordKind checks the keyword table: every keyword is found, and
// names that share a keyword's slot, length or letters are identifiers.
func TestKeywordKind(t *testing.T) {
	for _, k := range keywords {
		if got := keywordKind(k.word); got != k.kind {
			t.Errorf("keywordKind(%q) = %v, want %v", k.word, got, k.kind)
		}
		for _, near := range []string{k.word + "s", k.word[1:], "_" + k.word, k.word[:len(k.word)-1] + "x", strings.ToUpper(k.word)} {
			if got := keywordKind(near); got != tIdent && !isKeyword(near) {
				t.Errorf("keywordKind(%q) = %v, want an identifier", near, got)
			}
		}
	}
}

// isKeyword reports whether s is in the keyword list.
func isKeyword(s string) bool {
	for _, k := range keywords {
		if k.word == s {
			return true
		}
	}
	return false
}
