package syntax

import (
	"strings"
	"testing"
)

// TestErrorHints parses broken sources covering the parser's and lexer's
// error sites and checks that each error names the expected problem, carries
// a hint of its own (not the fallback) and a span inside the source.
func TestUnclosedHoleTeachesLiteralBraces(t *testing.T) {
	_, err := Parse(`json.parse("{\"a\": 1}")`, ParseOptions{})
	e, ok := err.(*Error)
	if !ok || !strings.Contains(e.Hint, "starts an interpolation") || !strings.Contains(e.Hint, "single-quoted") {
		t.Fatalf("err = %#v, want a hint about interpolation braces", err)
	}
}

func TestErrorHints(t *testing.T) {
	tests := []struct {
		src, msg string
	}{
		// lexer
		{src: `echo "abc`, msg: "unterminated string"},
		{src: `let s = "a` + "\n" + `"`, msg: "unterminated string (newline)"},
		{src: `let t = t"2024`, msg: "unterminated string"},
		{src: `json.parse("{\"a\": 1}")`, msg: "unterminated string"},
		{src: `let x = 0xfg`, msg: "invalid digit in number literal"},
		{src: `let x = 12abc`, msg: "unknown unit"},
		{src: `let x = 10MB`, msg: "size units are lowercase"},
		{src: `let x = 5MS`, msg: "duration units are lowercase"},
		{src: `let x = 1kb_`, msg: "invalid number literal"},
		{src: `let x = 25:61`, msg: "invalid time of day"},
		{src: `let x = 1 \`, msg: "line-continuation"},
		{src: "let x = \xff", msg: "invalid UTF-8"},
		{src: `let x = 1 @ 2`, msg: "unexpected character `@`"},
		{src: `echo $HOME`, msg: "variables have no sigil"},
		{src: "echo `date`", msg: "backtick"},
		{src: `ls | wc`, msg: "no pipe operator"},
		{src: `cat << EOF`, msg: "no heredocs"},
		{src: `make 2> err.txt`, msg: "no fd-numbered redirects"},
		// statements
		{src: `let x = [1, 2`, msg: "expected `,` or `]` in list, found EOF"},
		{src: `let x = [1 2]`, msg: "expected `,` or `]` in list"},
		{src: `let = 3`, msg: "expected a name after let"},
		{src: `let x 3`, msg: "expected `=`"},
		{src: `let [a, b] = xs`, msg: "destructuring"},
		{src: `export x`, msg: "expected let, var or fn after export"},
		{src: `fn (a) { a }`, msg: "expected a function name"},
		{src: `fn f a { a }`, msg: "expected `(` after fn f"},
		{src: `fn f(1) { }`, msg: "expected a parameter name"},
		{src: `fn f(a b) { }`, msg: "expected `,` or `)` in parameters"},
		{src: `fn f(...a, ...b) { }`, msg: "only one ...rest"},
		{src: `fn f(...a, b) { }`, msg: "must be last"},
		{src: `fn f(a: 1) { }`, msg: "expected a type"},
		{src: `fn f() {`, msg: "expected `}` to close the block, found EOF"},
		{src: `alias = ls`, msg: "expected an alias name"},
		{src: `alias ll ls`, msg: "expected `=`"},
		{src: `use (x)`, msg: "expected a module path after use"},
		{src: `use "{x}"`, msg: "a module path cannot interpolate"},
		{src: `for 1 in xs { }`, msg: "expected a loop variable"},
		{src: `for [a, b] in xs { }`, msg: "a for loop binds a single name"},
		{src: `for x of xs { }`, msg: "expected `in`"},
		{src: `while true echo`, msg: "expected `{`"},
		{src: `}`, msg: "unexpected `}`"},
		{src: `let x = 1 )`, msg: "unexpected `)`"},
		{src: `let x = 1 ]`, msg: "unexpected `]`"},
		{src: `let x = 1 2`, msg: "after statement"},
		{src: `let x = 1 & 2`, msg: "`&` is not an operator"},
		{src: `f() = 2`, msg: "cannot assign to this expression"},
		{src: `let r = {a: 1}` + "\n" + `r?.a = 2`, msg: "cannot assign through `?.`"},
		{src: `.name`, msg: "a leading `.` has no receiver"},
		// expressions
		{src: `let x = 1 +`, msg: "expected expression, found EOF"},
		{src: `let x = (1, 2)`, msg: "unexpected `,` in parentheses"},
		{src: `let x = (1 + 2`, msg: "expected `)`"},
		{src: `let x = 1 < 2 < 3`, msg: "comparison operators do not chain"},
		{src: `let x = y?.`, msg: "expected a field name after `?.`"},
		{src: `let x = f(1 2)`, msg: "expected `,` or `)` in arguments"},
		{src: `let x = xs.map(.a + 1 2)`, msg: "`.name` shorthand"},
		{src: `let x = xs[1`, msg: "expected `]`"},
		{src: `let x = {a: 1 b: 2}`, msg: "expected `,` or `}` in record"},
		{src: `let x = {a: 1, 2: 3}`, msg: "expected a record key"},
		{src: `let x = {"a{b}": 1}`, msg: "a record key cannot interpolate"},
		{src: `let x = try { 1 }`, msg: "expected `catch` after try block"},
		{src: `with 1 { }`, msg: "expected cwd:, env: or reef: after with"},
		{src: `with dir: "x" { }`, msg: "unknown with scope"},
		{src: `with cwd "x" { }`, msg: "expected `:`"},
		{src: `let x = 99999999999999999999`, msg: "integer literal"},
		{src: `let x = 1e999`, msg: "float literal"},
		{src: `let x = 99999999999tb`, msg: "size literal"},
		{src: `let x = it`, msg: "REPL-only"},
		{src: `sh { echo {`, msg: "unbalanced braces"},
		{src: `python3 '''print(1)`, msg: "unterminated python3"},
		{src: `let x = "a\q"`, msg: "unknown escape"},
		{src: `let x = "\u{zz}"`, msg: "invalid unicode escape"},
		{src: `let x = "{1 2}"`, msg: "to close the interpolation"},
		{src: `let x = ` + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600), msg: "nesting is too deep"},
		// commands
		{src: `^ ls`, msg: "`^` must be followed directly"},
		{src: `FOO=1 *.go`, msg: "a glob cannot be a command name"},
		{src: `ls & echo`, msg: "`&` must end the command"},
		{src: `ls (1 + 2`, msg: "expected `)`"},
		{src: `ls > `, msg: "expected a command argument"},
		{src: `ls ]`, msg: "unexpected `]`"},
		// match
		{src: "match x {\n1 => 2\n", msg: "expected `}` to close the match"},
		{src: `match x { | 1 => 2 }`, msg: "unexpected `|` at the start of a match arm"},
		{src: `match x { 1 2 }`, msg: "expected `=>` in match arm"},
		{src: `match x { 1 => 2 3 }`, msg: "after a match arm"},
		{src: `match x { -1.5..2 => 0 }`, msg: "a range pattern needs integer bounds"},
		{src: `match x { 1..2.5 => 0 }`, msg: "a range pattern needs integer bounds"},
		{src: `match x { "a{b}" => 0 }`, msg: "a string pattern cannot interpolate"},
		{src: `match x { (1) => 0 }`, msg: "expected a pattern"},
		{src: `match x { 1..x => 0 }`, msg: "expected a literal pattern"},
		{src: `match x { -5kb => 0 }`, msg: "cannot be negated"},
		{src: `match x { {1} => 0 }`, msg: "expected a field name in record pattern"},
		{src: `match x { {"a"} => 0 }`, msg: "needs a pattern"},
		{src: `match x { {"a{b}": 1} => 0 }`, msg: "a record pattern key cannot interpolate"},
		{src: `match x { {a b} => 0 }`, msg: "expected `,` or `}` in record pattern"},
		{src: `match x { [a b] => 0 }`, msg: "expected `,` or `]` in list pattern"},
		{src: `match x { [...r, a] => 0 }`, msg: "must be the last element"},
		{src: `match x 1`, msg: "to open the match arms"},
		{src: `match x { 1 => 2`, msg: "after a match arm, found EOF"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src, ParseOptions{})
		perr, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: got %v, want a parse error", tc.src, err)
			continue
		}
		if !strings.Contains(perr.Msg, tc.msg) {
			t.Errorf("%q: message %q does not contain %q", tc.src, perr.Msg, tc.msg)
		}
		if perr.Hint == "" || perr.Hint == fallbackHint {
			t.Errorf("%q: error %q has no hint of its own (hint %q)", tc.src, perr.Msg, perr.Hint)
		}
		if perr.Span.Start < 0 || perr.Span.Start > perr.Span.End || int(perr.Span.End) > len(tc.src) {
			t.Errorf("%q: span %v outside the source (len %d)", tc.src, perr.Span, len(tc.src))
		}
	}
}
