package format

import (
	"strings"
	"testing"
)

// TestSpacingRules: one rule of the canonical spacing a case.
func TestSpacingRules(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"binary operators", "let x = 1+2*3-4/5%6\n", "let x = 1 + 2 * 3 - 4 / 5 % 6\n"},
		{"comparisons and logic", "let a = 1\nlet b = a==1&&a!=2||a<=3\n", "let a = 1\nlet b = a == 1 && a != 2 || a <= 3\n"},
		{"coalesce", "let a = null\nlet v = a??2\n", "let a = null\nlet v = a ?? 2\n"},
		{"an unbound name is a command", "let v = missing  -1\nlet w=ls\n", "let v = missing -1\nlet w = ls\n"},
		{"keyword method", "let a = [1]\nlet m = a.match( 1 )\n", "let a = [1]\nlet m = a.match(1)\n"},
		{"keywords", "let a = [1]\nfor x in[1]{x}\ntry{1}catch e{2}\n", "let a = [1]\nfor x in [1] { x }\ntry { 1 } catch e { 2 }\n"},
		{"assignment", "var x=1\nx+=2\nx  =  3\n", "var x = 1\nx += 2\nx = 3\n"},
		{"prefix minus kept", "let a = -1\nlet b = - x\nlet c = 2 - -1\n", "let a = -1\nlet b = - x\nlet c = 2 - -1\n"},
		{"return of a negative", "fn f() { return -1 }\n", "fn f() { return -1 }\n"},
		{"not", "let n = !a\n", "let n = !a\n"},
		{"commas", "let l = [1 ,2,3]\n", "let l = [1, 2, 3]\n"},
		{"inside brackets", "let l = [ 1, 2 ]\nf( 1 )\n", "let l = [1, 2]\nf(1)\n"},
		{"record", "let r = { a : 1,b:2 }\n", "let r = {a: 1, b: 2}\n"},
		{"quoted keys", "let r = {\"a b\" :1}\n", "let r = {\"a b\": 1}\n"},
		{"empty record", "let r = { }\n", "let r = {}\n"},
		{"block on one line", "if a {1} else {2}\n", "if a { 1 } else { 2 }\n"},
		{"before a block", "if a{\n  1\n}else{\n  2\n}\n", "if a {\n  1\n} else {\n  2\n}\n"},
		{"fat arrow", "let f = x=>x+1\nmatch x { 1=>\"a\"\n_ =>  \"b\" }\n", "let f = x => x + 1\nmatch x { 1 => \"a\"\n  _ => \"b\" }\n"},
		{"return type", "fn f(a: int)->int { a }\n", "fn f(a: int) -> int { a }\n"},
		{"type arguments", "fn f(a : list< int >) { a }\n", "fn f(a: list<int>) { a }\n"},
		{"named arguments", "f(a:1, b :2)\n", "f(a: 1, b: 2)\n"},
		{"nested records", "let q = { a : { b : 1 } }\n", "let q = {a: {b: 1}}\n"},
		{"alternatives", "let x = 1\nlet m = match x { 1|2 => \"a\", _ => \"b\" }\n", "let x = 1\nlet m = match x { 1 | 2 => \"a\", _ => \"b\" }\n"},
		{"type with arguments", "fn g(a : map< str,int >)->list<str> { [] }\n", "fn g(a: map<str, int>) -> list<str> { [] }\n"},
		{"comparison in a loop", "var i = 0; while i<3 { i+=1 }\n", "var i = 0; while i < 3 { i += 1 }\n"},
		{"redirects kept", "ls   >  out.txt\nA=1 ls\n", "ls > out.txt\nA=1 ls\n"},
		{"command in parentheses", "let l = ( ls   -la ).lines()\n", "let l = (ls -la).lines()\n"},
		{"an escaped space ends a word", "A\\ \nA0\\   \n", "A\\ \nA0\\ \n"},
		{"ranges", "for i in 1 .. 5 { i }\n", "for i in 1..5 { i }\n"},
		{"method chains kept", "let n = xs.map(x => x*2).len()\n", "let n = xs.map(x => x * 2).len()\n"},
		{"semicolons", "let f = x => { let d = x*10 ;d }\n", "let f = x => { let d = x * 10; d }\n"},
		{"comment after code", "let x=1   # c\n", "let x = 1 # c\n"},
		{"command words kept", "ls   -la  a-b\n", "ls -la a-b\n"},
		{"command glue kept", "echo --n=2  x=1 a,b\n", "echo --n=2 x=1 a,b\n"},
		{"command argument expression", "echo (1+2)\n", "echo (1 + 2)\n"},
		{"command trailing block", "ls {1+2}\n", "ls { 1 + 2 }\n"},
		{"strings untouched", "let s = \"a  +  b\" + 'c ,d'\n", "let s = \"a  +  b\" + 'c ,d'\n"},
		{"interpolation untouched", "let s = \"${a+b}  x\"\n", "let s = \"${a+b}  x\"\n"},
		{"after a multi-line string", "let s = \"\"\"\n  a  \n\"\"\"+'x'\n", "let s = \"\"\"\n  a  \n\"\"\" + 'x'\n"},
		{"interpreter body untouched", "let t = sh { echo  a+b }\n", "let t = sh { echo  a+b }\n"},
		{"comment text untouched", "let x = 1 #  a+b ,c\n", "let x = 1 #  a+b ,c\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Source([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
			assertStable(t, []byte(c.in), got)
			assertSpaced(t, c.in)
		})
	}
}

// TestSpellingsAgree: two spellings of one program that differ only in
// spacing within lines format to the same bytes. Each corpus source is
// spelled wide (every gap outside tokens widened) and tight (every gap
// beside punctuation in expression code removed); a spelling that does not
// parse to the same tree is skipped, the rest must agree.
func TestSpellingsAgree(t *testing.T) {
	compared, skipped := 0, 0
	for _, src := range treeSources(t) {
		want, err := Source([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, spell := range []func(string) string{wide, tight} {
			v := spell(src)
			if !sameProgram(src, v) {
				skipped++
				continue
			}
			got, err := Source([]byte(v))
			if err != nil {
				t.Fatalf("%q: %v", v, err)
			}
			if string(got) != string(want) {
				t.Errorf("two spellings differ:\n%s\nformats to\n%s\nbut\n%s\nformats to\n%s", src, want, v, got)
			}
			compared++
		}
	}
	t.Logf("%d spellings compared, %d skipped (another tree)", compared, skipped)
	if compared < 1000 {
		t.Fatalf("only %d spellings compared", compared)
	}
}

// sameProgram reports whether a and b parse to the same tree with the
// same comments.
func sameProgram(a, b string) bool {
	pa, err := parse(a)
	if err != nil {
		return false
	}
	pb, err := parse(b)
	if err != nil || !SameTree(pa, pb) || len(pa.Comments) != len(pb.Comments) {
		return false
	}
	for i := range pa.Comments {
		if commentText(pa.Comments[i]) != commentText(pb.Comments[i]) || pa.Comments[i].Place != pb.Comments[i].Place {
			return false
		}
	}
	return true
}

// respell rewrites each run of spaces and tabs within a line of src that
// lies outside the tree's tokens and comments, after the line's first code
// and before its last: change gives the run's new text from the tree's
// flags, the bytes either side and the run's offset.
func respell(src string, change func(flags []uint8, before, after byte, at int) string) string {
	prog, err := parse(src)
	if err != nil {
		return src
	}
	opaque, flags := treeFacts(prog, src)
	var b strings.Builder
	oi := 0
	lineStart := true
	for i := 0; i < len(src); {
		for oi < len(opaque) && int(opaque[oi].End) <= i {
			oi++
		}
		if oi < len(opaque) && int(opaque[oi].Start) <= i {
			e := int(opaque[oi].End)
			b.WriteString(src[i:e])
			lineStart = false
			i = e
			continue
		}
		c := src[i]
		if c == '\n' {
			lineStart = true
		}
		if lineStart || (c != ' ' && c != '\t') {
			if c != ' ' && c != '\t' && c != '\n' {
				lineStart = false
			}
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j >= len(src) || src[j] == '\n' || src[j] == '#' || src[j] == '\r' || (oi < len(opaque) && int(opaque[oi].Start) < j && int(opaque[oi].Start) > i) {
			b.WriteString(src[i:j])
			i = j
			continue
		}
		var before byte
		if i > 0 {
			before = src[i-1]
		}
		b.WriteString(change(flags, before, src[j], i))
		i = j
	}
	return b.String()
}

// wide widens every gap to a space, a tab and a space.
func wide(src string) string {
	return respell(src, func([]uint8, byte, byte, int) string { return " \t " })
}

// tight removes the gaps beside punctuation in expression code.
func tight(src string) string {
	return respell(src, func(flags []uint8, before, after byte, at int) string {
		if flags[at]&fCmd != 0 || at > 0 && flags[at-1]&fCmd != 0 {
			return " "
		}
		if strings.IndexByte(",;:=+*/%<>|&()[]{}", before) >= 0 || strings.IndexByte(",;:=+*/%<>|&()[]{}", after) >= 0 {
			return ""
		}
		return " "
	})
}
