package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

func TestValues(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"arith", "2 + 3 * 4", "14"},
		{"let", "let x = 4\nx + 1", "5"},
		{"var compound", "var x = 10\nx -= 3\nx *= 2\nx", "14"},
		{"block value", "{ let a = 1\na + 1 }", "2"},
		{"if else", "if 1 > 2 { 1 } else if 2 > 1 { 2 } else { 3 }", "2"},
		{"if no else", "if false { 1 }", "null"},
		{"interp", `let n = "x"` + "\n" + `"{n}-{1 + 1}"`, `"x-2"`},
		{"record field", "{a: {b: 3}}.a.b", "3"},
		{"index negative", "[1, 2, 3][-1]", "3"},
		{"string index", `"héllo"[1]`, `"é"`},
		{"record index", `{a: 1}["a"]`, "1"},
		{"fn default", "fn inc(a: int, by: int = 1) { a + by }\ninc(4)", "5"},
		{"named arg", "fn f(x: int = 7, y: int = 1) { x + y }\nf(y: 2)", "9"},
		{"named before positional", "fn f(a: int, b: int) { a - b }\nf(b: 1, 5)", "4"},
		{"rest", "fn f(a, ...xs) { xs.len() }\nf(1, 2, 3)", "2"},
		{"return", "fn f(x) { if x > 0 { return 1 }\n2 }\n[f(5), f(-5)]", "[1, 2]"},
		{"recursion", "fn fact(n: int) { if n <= 1 { 1 } else { n * fact(n - 1) } }\nfact(10)", "3628800"},
		{"closure counter", "fn mk() { var n = 0\n() => { n += 1\nn } }\nlet c = mk()\nc()\nc()\nc()", "3"},
		{"closure per iteration", "var fs = []\nfor i in 1..=3 { fs = fs + [() => i] }\nfs.map(f => f())", "[1, 2, 3]"},
		{"iife", "((x) => (y => x + y)(3))(4)", "7"},
		{"trailing block thunk", "var n = 0\nretry(3) { n += 1\nif n < 3 { 1 / 0 } else { n } }", "3"},
		{"for range", "var s = 0\nfor i in 1..4 { s += i }\ns", "6"},
		{"for continue break", "var s = 0\nfor i in 0..10 { if i == 2 { continue }\nif i == 5 { break }\ns += i }\ns", "8"},
		{"while", "var i = 0\nwhile i < 5 { i += 1 }\ni", "5"},
		{"and or short circuit", "false && (1 / 0 == 0)", "false"},
		{"or returns operand", "true || (1 / 0 == 0)", "true"},
		{"coalesce", "null ?? 5", "5"},
		{"coalesce lazy", "3 ?? (1 / 0)", "3"},
		{"safe nav", "let x = null\nx?.a?.b", "null"},
		{"safe nav args unevaluated", "let x = null\nx?.foo(1 / 0)", "null"},
		{"catch binder", "(1 / 0) catch e { e.code }", `"div_zero"`},
		{"catch plain", "1 / 0 catch 5", "5"},
		{"try", "try { [1][5] } catch e { e.code }", `"index_range"`},
		{"try passthrough", "try { 1 + 1 } catch { 0 }", "2"},
		{"match type", `match "hi" { int n => "int"; str s => "str:{s}" }`, `"str:hi"`},
		{"match record", `match {a: 5, b: 2} { {a, b} if a > b => "gt"; _ => "le" }`, `"gt"`},
		{"match list rest", "match [1, 2, 3] { [a, ...rest] => rest; _ => [] }", "[2, 3]"},
		{"match alternatives", `match 2 { 1 | 2 => "small"; _ => "big" }`, `"small"`},
		{"match range", `match 7 { 0..5 => "low"; 5..=9 => "mid"; _ => "high" }`, `"mid"`},
		{"match binder scoped", "let n = 1\nmatch 5 { n => n }\nn", "1"},
		{"method fallback", `"hi".upper`, `"HI"`},
		{"implicit lambda field", "[{a: 1}, {a: 2}].map(.a)", "[1, 2]"},
		{"field wins over method", `{keys: "k"}.keys`, `"k"`},
		{"assign record field", "var r = {a: 1}\nr.b = 2\nr.a += 5\nr", "{a: 6, b: 2}"},
		{"assign nested index", "var r = {xs: [1, 2]}\nr.xs[0] = 9\nr", "{xs: [9, 2]}"},
		{"copy on write", "var a = [1, 2]\nlet b = a\na[0] = 5\nb", "[1, 2]"},
		{"namespace const", "math.pi > 3", "true"},
		{"namespace call", "math.sqrt(16)", "4"},
		{"tap", "[1, 2].tap(x => x.len())", "[1, 2]"},
		{"assert ok", "assert(1 == 1)", "null"},
		{"spawn await", "let t = spawn { 1 + 2 }\nt.await()", "3"},
		{"env read", "env.HOME", `"/home"`},
		{"env missing", "env.NOPE_NOT_SET", "null"},
		{"env assign", "env.GREETING = \"hi\"\nenv.GREETING", `"hi"`},
		{"today midnight", "let d = today\nd == t\"2026-07-09T00:00Z\"", "true"},
		{"now", "let n = now\nn == t\"2026-07-09T14:00Z\"", "true"},
		{"path ctor", `path("a/b.txt")`, "a/b.txt"},
		{"regex cached in loop", `var n = 0` + "\n" + `for i in 0..3 { if "a1".matches(re"\d").len() == 1 { n += 1 } }` + "\nn", "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			if got := s.inline(tc.src); got != tc.want {
				t.Errorf("%q = %s, want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestErrorCodes(t *testing.T) {
	tests := []struct{ name, src, code, contains string }{
		{"undefined", "let x = missing", "undefined_var", "missing"},
		{"let immutable", "let x = 1\nx = 2", "type_error", "let"},
		{"field missing", "{a: 1}.b", "field_missing", "`b`"},
		{"method is not a field on records", "{a: 1}.items", "field_missing", "items"},
		{"index range", "[1][5]", "index_range", ""},
		{"range index", "[1, 2, 3][0..2]", "type_error", ""},
		{"table index", "csv.parse(\"a\\n1\")[0]", "type_error", ""},
		{"no truthiness", "if [1] { 1 }", "type_error", "truthiness"},
		{"and operand", "1 && true", "type_error", ""},
		{"assert", "assert(false)", "assert_failed", ""},
		{"assert message", `assert(1 > 2, "too small")`, "assert_failed", "too small"},
		{"excess args", "fn f(x) { x }\nf(1, 2)", "arg_error", "expected 1 argument, got 2"},
		{"unknown named", "fn f(x) { x }\nf(1, bogus: 2)", "arg_error", "unknown argument `bogus`"},
		{"missing arg", "fn f(x) { x }\nf()", "arg_error", "missing argument `x`"},
		{"recursion limit", "fn f(n) { f(n + 1) }\nf(0)", "recursion_limit", ""},
		{"not callable", "let x = 5\nx(1)", "type_error", "not callable"},
		{"namespace constant called", "math.pi()", "field_missing", ""},
		{"namespace unknown member", "math.bogus", "field_missing", ""},
		{"break outside loop", "break", "type_error", ""},
		{"env assign in fn", "fn f() { env.X = \"1\" }\nf()", "custom", "with env:"},
		{"no match arm", "match 5 { 1 => 1 }", "type_error", ""},
		{"range float", "1..5.5", "type_error", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			_, err := s.eval(tc.src)
			var e *value.Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: want *value.Error %s, got %v", tc.src, tc.code, err)
			}
			if e.Code != tc.code {
				t.Errorf("%q: code %s (%s), want %s", tc.src, e.Code, e.Msg, tc.code)
			}
			if tc.contains != "" && !strings.Contains(e.Msg+" "+e.Hint, tc.contains) {
				t.Errorf("%q: message %q / hint %q lacks %q", tc.src, e.Msg, e.Hint, tc.contains)
			}
			if !e.HasPos {
				t.Errorf("%q: error has no span", tc.src)
			}
		})
	}
}

func TestErrorSpanIsInnermost(t *testing.T) {
	s := newSession(t)
	src := "let a = 1\nlet b = a + (1 / 0)"
	_, err := s.eval(src)
	var e *value.Error
	if !errors.As(err, &e) || !e.HasPos {
		t.Fatalf("want positioned error, got %v", err)
	}
	if got := src[e.Span.Start:e.Span.End]; got != "1 / 0" {
		t.Errorf("span covers %q, want %q", got, "1 / 0")
	}
}

func TestSessionPersistsAcrossEvals(t *testing.T) {
	s := newSession(t)
	if _, err := s.eval("let x = 40\nfn add2(n) { n + 2 }"); err != nil {
		t.Fatal(err)
	}
	// x is a value; add2, a declared function, is a command (as in the
	// source declaring it), so a later `add2 5` calls it.
	if !s.in.IsBound("x") || s.in.IsBound("add2") || s.in.IsBound("nope") {
		t.Errorf("IsBound wrong: names %v", s.in.Names())
	}
	if got := s.inline("add2(x)"); got != "42" {
		t.Errorf("got %s, want 42", got)
	}
	if _, err := s.eval("fn inc(n: int) { n + 1 }"); err != nil {
		t.Fatal(err)
	}
	if got := s.inline("inc 5"); got != "6" {
		t.Errorf("inc 5 = %s, want 6", got)
	}
}

func TestParseErrorIsSyntaxError(t *testing.T) {
	s := newSession(t)
	_, err := s.eval("1 <= 2 < 3")
	var pe *syntax.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want *syntax.Error, got %T %v", err, err)
	}
}

func TestCancellation(t *testing.T) {
	s := newSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.in.Eval(ctx, "var i = 0\nwhile true { i += 1 }")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != "cancelled" {
		t.Fatalf("want cancelled, got %v", err)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(Options{Registry: testRegistry, Dir: "/"}); err == nil {
		t.Error("New without a host succeeded")
	}
	if _, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "relative"}); err == nil {
		t.Error("New with a relative dir succeeded")
	}
}

func TestREPLTranscript(t *testing.T) {
	h := newFakeHost()
	in, err := New(Options{Registry: testRegistry, Host: h, Dir: "/work", REPL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"20 + 1", "it * 2"} {
		if _, err := in.Eval(context.Background(), src); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
	}
	v, err := in.Eval(context.Background(), "out")
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Inline(v); got != "[21, 42]" {
		t.Errorf("out = %s, want [21, 42]", got)
	}
}
