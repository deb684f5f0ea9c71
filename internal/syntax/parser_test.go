package syntax

import (
	"errors"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string, opts ParseOptions) *Program {
	t.Helper()
	p, err := Parse(src, opts)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return p
}

func TestParseShapes(t *testing.T) {
	tests := []struct{ src, want string }{
		// precedence
		{"2 + 3 * 4", "(+ 2 (* 3 4))"},
		{"(2 + 3) * 4", "(* (+ 2 3) 4)"},
		{"-value.abs()", "(- (.abs value))"},
		{"null ?? 1 || 2 && 3 == 4", "(?? null (|| 1 (&& 2 (== 3 4))))"},
		{"let a = 1\na ?? b || c", "(let a 1); (?? a (|| b (cmd c)))"},
		{"1..n + 1", "(.. 1 (+ n 1))"},
		{"1..=3", "(..= 1 3)"},
		{"1 in [1, 2]", "(in 1 [1 2])"},
		{"!true", "(! true)"},
		{"1 - b - c", "(- (- 1 b) c)"},
		{"10 +\n  20 +\n  30", "(+ (+ 10 20) 30)"},
		{"user?.profile?.name ?? \"anon\"", "(?? (.? (.? user profile) name) \"anon\")"},
		{"items[0].name.upper()", "(.upper (. ([] items 0) name))"},
		// literals
		{"0xFF_FF_FF", "16777215"},
		{"0b1111_0000", "240"},
		{"0o755", "493"},
		{"1_000_000", "1000000"},
		{"3.14", "f3.14"},
		{"1.0e-9", "f1e-09"},
		{"512b; 1.5mb; 2gib; 1_000kb", "512B; 1500000B; 2147483648B; 1000000B"},
		{"250ms; 1.5h; 30d.ago", "250000000ns; 5400000000000ns; (. 2592000000000000ns ago)"},
		{"09:30; 10:30:15pm", "(time 34200 false); (time 81015 true)"},
		{`t"2026-07-16"`, `(t "2026-07-16")`},
		{`re"^\d+$"`, `(re "^\\d+$")`},
		{`"a\n\t\\\"\{\}"`, `"a\n\t\\\"{}"`},
		{`'raw {x} \n'`, `r"raw {x} \\n"`},
		{`"answer {6 * 7}!"`, `(interp "answer " {(* 6 7)} "!")`},
		{`"result: {"  ab  ".trim().upper()}"`, `(interp "result: " {(.upper (.trim "  ab  "))})`},
		{"\"\"\"\n    hello\n      {name}\n    \"\"\"", `(interp "hello\n  " {name})`},
		{"'''\n  a\n\n  b\n  '''", `r"a\n\nb"`},
		{"[]; [1, 2,]; [\n  1,\n  2\n]", "[]; [1 2]; [1 2]"},
		{"{}; {a: 1, \"b-c\": [2]}", `{}; {a:1 b-c:[2]}`},
		{"{\n  a: 1,\n  b: 2,\n}", "{a:1 b:2}"},
		{"{ let x = 20\n x + 22 }", "(block (let x 20) (+ x 22))"},
		// lambdas and item shorthand
		{"xs.map(x => x * 2)", "(.map xs (lambda (x) (* x 2)))"},
		{"xs.reduce(0, (acc: int, x) => acc + x)", "(.reduce xs 0 (lambda (acc:int x) (+ acc x)))"},
		{"(() => { 42 })()", "(call (lambda () (block 42)))"},
		{"xs.where(.size > 1mb)", "(.where xs (lambda* (·it) (> (. ·it size) 1000000B)))"},
		{"xs.map(.len())", "(.map xs (lambda* (·it) (.len ·it)))"},
		{"xs.map(x => {v: x.a})", "(.map xs (lambda (x) {v:(. x a)}))"},
		{"json.stringify(1, pretty: true)", "(.stringify json 1 pretty:true)"},
		{"make CC=\"gcc -O2\" X='y'", `(cmd make str:"CC=gcc -O2" str:r"X=y")`},
		// trailing blocks and headers
		{"retry(3) { 1 }", "(call retry 3 &(block 1))"},
		{"items.each { 1 }", "(.each items &(block 1))"},
		{"for p in glob(\"*.md\") { p }", "(for p (call glob \"*.md\") (block p))"},
		{"while i < 5 { i += 1 }", "(while (< i 5) (block (+= i 1)))"},
		{"if x.ok { 1 }", "(if (. x ok) (block 1))"},
		// control
		{"if a { 1 }\nelse { 2 }", "(if a (block 1) (block 2))"},
		{"try { 1 / 0 } catch { 0 }", `(try (block (/ 1 0)) catch "" (block 0))`},
		{"1/0 catch \"fallback\"", `(catch (/ 1 0) "" "fallback")`},
		{"risky()\n  catch e { e.msg }", `(catch (call risky) "e" (block (. e msg)))`},
		{"x catch fallback", `(cmd x catch fallback)`},
		{"let y = f() catch fallback", `(let y (catch (call f) "" fallback))`},
		{"match v { 0 | 1 => \"s\", int n if n > 9 => n; {a, b: [x, ...r]} => x\n _ => 0 }",
			`(match v (0 | 1 => "s") ((int n) if (> n 9) => n) ({a b:[x ...r]} => x) (_ => 0))`},
		{"match 5 { n if flag => 1; _ => 0 }", "(match 5 (n if flag => 1) (_ => 0))"},
		{"match x { -3..-1 => 1; 1.5 => 2; \"s\" => 3; null => 4; int => 5 }",
			`(match x (-3..-1 => 1) (f1.5 => 2) ("s" => 3) (null => 4) (int => 5))`},
		{"with cwd: \"sub\" { }", `(with cwd:"sub" (block))`},
		{"spawn { sleep 1s }", "(spawn (block (cmd sleep 1s)))"},
		// statements
		{"let x: list<int>? = [1]", "(let x :list<int>? [1])"},
		{"export var n = 1", "(export-var n 1)"},
		{"# Greets.\n# Twice.\nfn greet(name: str, p: str = \"!\") -> str { name }",
			`(fn greet (name:str p:str="!") -> str doc="Greets.\nTwice." (block name))`},
		{"fn f(...xs: list<str>) { xs }", "(fn f ( ...xs:list<str>) (block xs))"},
		{"alias gs = git status --short", "(alias gs (cmd git status --short))"},
		{"use ./lib/deploy\ndeploy.build(1)", "(use ./lib/deploy); (.build deploy 1)"},
		{"fn f() { return }; fn g() { return 1 }", "(fn f () (block (return))); (fn g () (block (return 1)))"},
		{"for i in 1..4 { if i == 2 { continue }; break }", "(for i (.. 1 4) (block (if (== i 2) (block (continue))) (break)))"},
		{"var x = 1; x -= 1; x *= 2; x /= 2", "(var x 1); (-= x 1); (*= x 2); (/= x 2)"},
		// commands
		{"git status --short", "(cmd git status --short)"},
		{"echo ver#2 # comment", "(cmd echo ver#2)"},
		{"ls -la ./src ../up /abs ~/h ~ . ..", "(cmd ls -la path:./src path:../up path:/abs path:~/h path:~ path:. path:..)"},
		{"rm *.tmp [ab].txt src/**/*.rs", "(cmd rm glob:*.tmp glob:[ab].txt glob:src/**/*.rs)"},
		{"echo 'a b' \"x{y}\" (1 + 2)", `(cmd echo str:r"a b" str:(interp "x" {y}) expr:(+ 1 2))`},
		{"f --n=-5 --x=\"a b\" -- - -5", `(cmd f --n=-5 --x=str:"a b" dashdash dash -5)`},
		{"echo hi > out.txt; echo b >> out.txt; sort < in.txt", "(cmd echo hi out:out.txt); (cmd echo b append:out.txt); (cmd sort in:in.txt)"},
		{"RUST_LOG=debug cargo test > ./t.log &", "(cmd RUST_LOG=debug cargo test out:path:./t.log &)"},
		{"A=1 B=\"x\" env", `(cmd A=1 B=str:"x" env)`},
		{"make CC=gcc", "(cmd make CC=gcc)"},
		{"^git status", "(cmd ^git status)"},
		{"./head.shl", "(cmd path:./head.shl)"},
		{"echo a \\\n  b", "(cmd echo a b)"},
		{"git stash list stash@{0}", "(cmd git stash list stash@{0})"},
		{"echo a\\ b", "(cmd echo a b)"},
		{"^true || ^false", "(|| (cmd ^true) (cmd ^false))"},
		{"(echo hi).out", "(. (cmd echo hi) out)"},
		{"\"x\".feed(grep -c \"x\").out", `(. (.feed "x" (cmd grep -c str:"x")) out)`},
		{"[3, 1].feed(sort).out", "(. (.feed [3 1] (cmd sort)) out)"},
		{"sort.feed(\"b\")", `(.feed sort "b")`},
		{"retry 3 { 1 }", "(cmd retry 3 &(block 1))"},
		{"sh { printf '{}' | sort }.out", `(. (lang sh " printf '{}' | sort ") out)`},
		{"python '''\n    print(1)\n    '''", `(lang python "print(1)")`},
		{"cp (glob(\"*.rs\")) path(\"b\")", `(cmd cp expr:(call glob "*.rs") expr:(call path "b"))`},
		{"let x = FOO=1 env", "(let x (cmd FOO=1 env))"},
		{"x=5", "(= x 5)"},
		// forms the user documentation teaches
		{"watch(./src)", `(call watch (path "./src"))`},
		{"f(./a, ../b, ~/c, /d)", `(call f (path "./a") (path "../b") (path "~/c") (path "/d"))`},
		{"f(./run.sh --fast)", `(call f (cmd path:./run.sh --fast))`},
		{"[./a, ./b]", `[(path "./a") (path "./b")]`},
		{"with cwd: ./crates { 1 }", `(with cwd:(path "./crates") (block 1))`},
		{"xs.each(t => echo (t))", `(.each xs (lambda (t) (cmd echo expr:t)))`},
		{"xs.each(t => ^false)", `(.each xs (lambda (t) (cmd ^false)))`},
		{"xs.map(t => y)", `(.map xs (lambda (t) y))`},
		{"use ./lib/report as reports\nreports", "(use ./lib/report as reports); reports"},
		{"use ./lib/report\nreport", "(use ./lib/report); report"},
		{"let a = 1\n{a, b: 2}", "(let a 1); {a:a b:2}"},
		{"let a = 1\n{b: 2, a}", "(let a 1); {b:2 a:a}"},
		{"let a = 1\n{ a }", "(let a 1); (block a)"},
		{"echo {name: \"api\"} x", `(cmd echo expr:{name:"api"} x)`},
		{"gs(--short: true, n: 2)", "(call gs short:true n:2)"},
		{"f(--a)", "(call f (- (- a)))"},
		{"let r = 1\npwd == r", "(let r 1); (== (cmd pwd) r)"},
		{"pwd != 1", "(!= (cmd pwd) 1)"},
		{"test a == b", "(cmd test a == b)"},
		{"^echo == x", "(cmd ^echo == x)"},
		{"xs.map(t => y + 1)", `(.map xs (lambda (t) (+ y 1)))`},
	}
	for _, tt := range tests {
		p, err := Parse(tt.src, ParseOptions{})
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := sexpr(p); got != tt.want {
			t.Errorf("Parse(%q)\n got: %s\nwant: %s", tt.src, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, contains string
		incomplete    bool
	}{
		{"use ./lib/report as", "expected a name after `as`", true},
		{"xs.map({a: .name})", "inside a record is not the item shorthand", false},
		{"xs.where(.a == 1 and .b)", "logical and is &&", false},
		{"let a = true\na or false", "logical or is ||", false},
		{"if true and false { 1 }", "logical and is &&", false},
		{`let body = "{}"`, "an empty interpolation", false},
		{"use ./lib/report as 3", "expected a name after `as`", false},
		{"ls | grep x", "no pipe operator", false},
		{"1 | 2", "no pipe operator", false},
		{"xs.map(1 | 2)", "no pipe operator", false},
		{"cat << EOF", "no heredocs", false},
		{"grep x <<< \"t\"", "no here-strings", false},
		{"ls 2> f", "no fd-numbered redirects", false},
		{"ls 2>> f", "no fd-numbered redirects", false},
		{"ls &> f", "no stream-merging redirect", false},
		{"ls &>> f", "no stream-merging redirect", false},
		{"echo a`b", "backtick is not shoal syntax", false},
		{"`pwd`", "backtick is not shoal syntax", false},
		{"$HOME", "no sigil", false},
		{"echo $HOME", "no sigil", false},
		{"echo x$y", "no sigil", false},
		{"@", "unexpected character", false},
		{"1 ~ 2", "unexpected character", false},
		{"true & false", "not an operator", false},
		{"echo ]", "unexpected `]`", false},
		{"zzz [a, b]", "cannot start a command argument", false},
		{"git log.len()", "expected expression, found RParen", false},
		{"it", "REPL-only", false},
		{"out", "REPL-only", false},
		{"(it)", "REPL-only", false},
		{"it + 1", "REPL-only", false},
		{"xs.map(x => it)", "REPL-only", false},
		{"1 <= 2 < 3", "do not chain", false},
		{"1 == 2 == 3", "do not chain", false},
		{`"bad \q escape"`, "unknown escape", false},
		{`"\u{110000}"`, "invalid unicode escape", false},
		{"match 5 { | 1 => 2 }", "unexpected `|` at the start of a match arm", false},
		{"match xs { [...init, last] => 1 }", "must be the last element", false},
		{"'a\nb'", "unterminated string (newline)", false},
		{"\"a\nb\"", "unterminated string (newline)", false},
		{"\"a{1\n}\"", "unterminated string (newline)", false},
		{"9223372036854775808", "out of range", false},
		{"1KB", "lowercase", false},
		{"5Mib", "lowercase", false},
		{"5xyz", "unknown unit", false},
		{"25:00", "invalid time", false},
		{"13:00pm", "invalid time", false},
		{".name", "no receiver", false},
		{"sleep 1 & ls", "must end the command", false},
		{"let [a, b] = xs", "destructuring", false},
		{"for [a, b] in xs { }", "single name", false},
		{"f() = 1", "cannot assign", false},
		{"x?.y = 1", "cannot assign", false},
		{"export x", "expected let, var or fn", false},
		{"with foo: 1 { }", "unknown with scope", false},
		{"try { 1 }", "expected `catch`", true},
		{"fn f(...a, b) { }", "rest parameter must be last", false},
		{"xs.map(.a, .b + )", "expected expression", false},
		{"xs.map(.a x)", "complete argument", false},
		{"{a: 1", "expected `,` or `}`", true},
		{"(1, 2)", "unexpected `,`", false},
		{"}", "unexpected `}`", false},
		{")", "expected expression, found RParen", false},
		{"(1))", "unexpected `)`", false},
		{"\"{}\"", "an empty interpolation", false},
		{"\"{1 2}\"", "expected `}` to close the interpolation", false},
		// incomplete input
		{"(1 +", "expected expression, found EOF", true},
		{"[1,", "expected expression, found EOF", true},
		{"{", "expected `}`", true},
		{"if x {", "expected `}`", true},
		{"if x { 1 } else", "expected `{`", true},
		{"1 +", "found EOF", true},
		{"1 +\n", "found EOF", true},
		{"\"abc", "unterminated string", true},
		{"\"\"\"abc\n", "unterminated string", true},
		{"'''abc", "unterminated string", true},
		{"let x =", "found EOF", true},
		{"fn f(a", "found EOF", true},
		{"match x {", "expected `}`", true},
		{"echo a \\", "line-continuation", true},
		{"sh { echo", "unbalanced braces", true},
		{"xs.map(x =>", "found EOF", true},
		{"f(", "found EOF", true},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src, ParseOptions{})
		if err == nil {
			t.Errorf("Parse(%q): expected an error containing %q", tt.src, tt.contains)
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): error %T is not *Error", tt.src, err)
			continue
		}
		if !strings.Contains(pe.Msg, tt.contains) {
			t.Errorf("Parse(%q): message %q does not contain %q", tt.src, pe.Msg, tt.contains)
		}
		if pe.Incomplete != tt.incomplete {
			t.Errorf("Parse(%q): Incomplete = %v, want %v (%s)", tt.src, pe.Incomplete, tt.incomplete, pe.Msg)
		}
		if pe.Span.Start < 0 || int(pe.Span.End) > len(tt.src) || pe.Span.Start > pe.Span.End {
			t.Errorf("Parse(%q): error span %v outside source", tt.src, pe.Span)
		}
	}
}

func TestDispatchBindings(t *testing.T) {
	tests := []struct {
		src   string
		bound []string
		want  string
	}{
		{"git status", nil, "(cmd git status)"},
		{"let git = {name: 1}\ngit.name\ngit", nil, "(let git {name:1}); (. git name); git"},
		{"let ls = 5\nls\n^ls", nil, "(let ls 5); ls; (cmd ^ls)"},
		{"fn f(n: int) { n }\nf 5\nf(5)\nf", nil, "(fn f (n:int) (block n)); (cmd f 5); (call f 5); (cmd f)"},
		{"alias gs = git status\ngs --short", nil, "(alias gs (cmd git status)); (cmd gs --short)"},
		{"x + 1", []string{"x"}, "(+ x 1)"},
		{"x + 1", nil, "(cmd x + 1)"},
		{"let x = 1\n{ let y = 2\n y }\ny", nil, "(let x 1); (block (let y 2) y); (cmd y)"},
		{"for i in xs { i }\ni", nil, "(for i xs (block i)); (cmd i)"},
		{"xs.map(ls => ls)", nil, "(.map xs (lambda (ls) ls))"},
		{"let g = (x, ls) => { ls + x }", nil, "(let g (lambda (x ls) (block (+ ls x))))"},
		{"match 1 { n => { n } }", nil, "(match 1 (n => (block n)))"},
		{"try { 1 } catch e { e }", nil, `(try (block 1) catch "e" (block e))`},
		{"1 catch e { e }", nil, `(catch 1 "e" (block e))`},
		{"fn f(a) { a }\nlet v = f\nv", nil, "(fn f (a) (block a)); (let v (cmd f)); v"},
		{"path(\"x\"); glob(\"*\"); regex(\"a\")", nil, `(call path "x"); (call glob "*"); (call regex "a")`},
		{"now - today < 1d", nil, "(< (- now today) 86400000000000ns)"},
		{"false && missing", nil, "(&& false (cmd missing))"},
		{"if ok && y { 1 }", nil, "(if (&& ok (cmd y)) (block 1))"},
		{"let z = (echo hi)", nil, "(let z (cmd echo hi))"},
	}
	for _, tt := range tests {
		opts := ParseOptions{}
		if tt.bound != nil {
			set := map[string]bool{}
			for _, b := range tt.bound {
				set[b] = true
			}
			opts.IsBound = func(n string) bool { return set[n] }
		}
		got := sexpr(mustParse(t, tt.src, opts))
		if got != tt.want {
			t.Errorf("Parse(%q)\n got: %s\nwant: %s", tt.src, got, tt.want)
		}
	}
}

func TestREPLMode(t *testing.T) {
	opts := ParseOptions{REPL: true}
	tests := []struct{ src, want string }{
		{"it", "it"},
		{"out.len()", "(.len out)"},
		{".name", "(. it name)"},
		{".where(.ok).len()", "(.len (.where it (lambda* (·it) (. ·it ok))))"},
		{"(it)", "it"},
		{"./run.sh", "(cmd path:./run.sh)"},
	}
	for _, tt := range tests {
		if got := sexpr(mustParse(t, tt.src, opts)); got != tt.want {
			t.Errorf("REPL Parse(%q)\n got: %s\nwant: %s", tt.src, got, tt.want)
		}
	}
}

func TestSpans(t *testing.T) {
	src := "let x = [1, 2].map(y => y * 2)\necho (x) > f.txt"
	p := mustParse(t, src, ParseOptions{})
	let := p.Stmts[0].(*LetStmt)
	if let.Span != (Span{0, 30}) {
		t.Errorf("let span = %v", let.Span)
	}
	m := let.Init.(*MethodCall)
	if got := src[m.Span.Start:m.Span.End]; got != "[1, 2].map(y => y * 2)" {
		t.Errorf("method span covers %q", got)
	}
	lam := m.Args[0].Value.(*Lambda)
	if got := src[lam.Span.Start:lam.Span.End]; got != "y => y * 2" {
		t.Errorf("lambda span covers %q", got)
	}
	cmd := p.Stmts[1].(*ExprStmt).X.(*Cmd)
	if got := src[cmd.Span.Start:cmd.Span.End]; got != "echo (x) > f.txt" {
		t.Errorf("cmd span covers %q", got)
	}
	if got := src[cmd.Call.Args[0].Span.Start:cmd.Call.Args[0].Span.End]; got != "(x)" {
		t.Errorf("expr arg span covers %q", got)
	}
	if got := src[cmd.Call.Redirects[0].Span.Start:cmd.Call.Redirects[0].Span.End]; got != "> f.txt" {
		t.Errorf("redirect span covers %q", got)
	}
	interp := mustParse(t, `"a{b}c"`, ParseOptions{}).Stmts[0].(*ExprStmt).X.(*StrInterp)
	if v := interp.Parts[1].X.(*Var); v.Span != (Span{3, 4}) {
		t.Errorf("hole var span = %v, want {3 4}", v.Span)
	}
}

func TestNestingLimit(t *testing.T) {
	src := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	if _, err := Parse(src, ParseOptions{}); err == nil || !strings.Contains(err.Error(), "too deep") {
		t.Fatalf("deep nesting: err = %v", err)
	}
}
