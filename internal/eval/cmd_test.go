package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func TestCommandValues(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"captured text out", `(printf "hi\n").out`, `"hi"`},
		{"json out", `(printf '{"n": 4}').out.n`, "4"},
		{"empty json record", `(printf '{}').out`, "{}"},
		{"failed status readable", "let r = (fail)\nr.status", "3"},
		{"failed ok false", "let r = (fail)\nr.ok", "false"},
		{"stdout bytes on failure", "let r = (fail)\nr.stdout.len()", "8"},
		{"outcome forwards methods", "(args a b).out.lines().len()", "2"},
		{"outcome forwards to out", "(printf 'abc').len()", "3"},
		{"builtin outcome", "(echo a b c).out", `"a b c"`},
		{"echo renders values", "(echo ([1, 2]) (null) x).out", `"[1, 2]  x"`},
		{"feed list of strings", `["b", "a"].feed(sort).out`, `"a\nb"`},
		{"feed record as json", "{n: 5}.feed(cat).out.n", "5"},
		{"feed int", "5.feed(cat).out", `"5"`},
		{"feed chain", `["b", "a"].feed(sort).feed(cat).out`, `"a\nb"`},
		{"feed inverted", `sort.feed("b\na").out`, `"a\nb"`},
		{"env prefix", "(FOO=bar getenv FOO).out", `"bar"`},
		{"with env", `with env: {FOO: "x"} { (getenv FOO).out }`, `"x"`},
		{"with env restores", `with env: {FOO: "x"} { 1 }` + "\n(getenv FOO).out", `""`},
		{"with cwd", "with cwd: \"/home\" { (where).out }", `"/home"`},
		{"glob args expand", "(args *.txt).out", `"a.txt\nb.txt"`},
		{"empty glob vanishes", "(args x *.none y).out", `"x\ny"`},
		{"flags pass through", "(args -v --name=x -- y).out", `"-v\n--name=x\n--\ny"`},
		{"and chain returns operand", "(true) && (printf ok)", "outcome"},
		{"if outcome", `if (true) { "yes" } else { "no" }`, `"yes"`},
		{"not outcome", "!(false)", "true"},
		{"alias", "alias say = printf\n(say hey).out", `"hey"`},
		{"alias cmd line", "alias a = args one\n(a two).cmd", `"args one two"`},
		{"word binding", "fn f(a: int, b: int = 10) { a + b }\nf 5", "15"},
		{"word flag value", `fn f(a: str, times: int = 1) { [a, times] }` + "\n(f x --times 3)", `["x", 3]`},
		{"word flag equals", `fn f(a: str, times: int = 1) { [a, times] }` + "\n(f x --times=3)", `["x", 3]`},
		{"word bool flag", `fn f(a: str, force: bool = false) { [a, force] }` + "\n(f x --force)", `["x", true]`},
		{"word rest glob", "fn f(...ps: list<path>) { ps.len() }\nf *.txt", "2"},
		{"word glob param", "fn f(g: glob) { g }\nf *.txt", "*.txt"},
		{"word list param", "fn f(xs: list<str>) { xs }\nf *.txt", `["a.txt", "b.txt"]`},
		{"forced past value shadow", "let printf = 5\n(^printf zz).out", `"zz"`},
		{"bound value as command", "let x = 5\nx", "5"},
		{"source shares scope", "source lib.shl\nlibval", "42"},
		{"run does not leak", "run lib.shl\n(libval) catch e { e.code }", `"undefined_var"`},
		{"script args", "run show.shl a b", `["a", "b"]`},
		{"which", "(which printf).name", `"printf"`},
		{"which miss", "(which nope).out", "null"},
		{"env builtin", "(env HOME).out", `"/home"`},
		{"lang block", "sh { printf hi }.out", `"hi"`},
		{"save and read", "\"hey\".save(\"n.txt\")\npath(\"n.txt\").read", `"hey"`},
		{"path exists", `[path("a.txt").exists, path("zz").exists]`, "[true, false]"},
		{"use module", "use ./mod\nmod.double(4)", "8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.h.progs["sh"] = func(sp *host.Spawn, _ []byte) (string, string, int) {
				if len(sp.Argv) == 3 && sp.Argv[1] == "-c" && strings.HasPrefix(sp.Argv[2], "printf ") {
					return strings.TrimPrefix(sp.Argv[2], "printf "), "", 0
				}
				return "", "unsupported", 2
			}
			s.h.files["/work/a.txt"] = []byte("A")
			s.h.files["/work/b.txt"] = []byte("B")
			s.h.files["/work/lib.shl"] = []byte("let libval = 42\n")
			s.h.files["/work/show.shl"] = []byte("args\n")
			s.h.files["/work/mod.shl"] = []byte("let k = 2\nexport fn double(n) { n * k }\n")
			v, err := s.eval(tc.src)
			if err != nil {
				t.Fatalf("%q: %v", tc.src, err)
			}
			got := value.Inline(v)
			if tc.want == "outcome" {
				if _, ok := v.(*value.Outcome); !ok {
					t.Errorf("%q = %s, want an outcome", tc.src, got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("%q = %s, want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct{ name, src, code, contains string }{
		{"statement failure raises", "fail", "cmd_failed", "exited with status 3"},
		{"out of failed outcome", "let r = (fail)\nr.out", "cmd_failed", "status 3"},
		{"forwarded field of failed outcome", "let r = (fail)\nr.len()", "cmd_failed", ""},
		{"not found", "zzzznotacommand", "not_found", ""},
		{"did you mean builtin", "wich", "not_found", "did you mean 'which'?"},
		{"did you mean binding", "fn deploy() { 1 }\ndeployy", "not_found", "did you mean 'deploy'?"},
		{"value position unknown", "let x = zzzznotacommand", "undefined_var", ""},
		{"feed path", `path("a.txt").feed(cat)`, "type_error", "a name, not"},
		{"feed regex", `re"x".feed(cat)`, "feed_error", ""},
		{"flag without value", "fn f(a: str, times: int = 1) { a }\n(f x --times)", "arg_error", "--times requires a value"},
		{"excess words", "fn f(x: int) { x }\nf 1 2", "arg_error", "expected 1 argument, got 2"},
		{"bad word", "fn f(a: int) { a }\nf abc", "arg_error", "abc"},
		{"unknown flag", "fn f(a: int) { a }\nf 1 --bogus", "arg_error", "unknown argument `bogus`"},
		{"env too many", `env "a" "b"`, "arg_error", ""},
		{"with cwd missing", `with cwd: "/nope" { 1 }`, "not_found", ""},
		{"runner not found", `run("./x.zzz")`, "runner_not_found", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.h.files["/work/a.txt"] = []byte("A")
			_, err := s.eval(tc.src)
			var e *value.Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: want %s, got %v", tc.src, tc.code, err)
			}
			if e.Code != tc.code {
				t.Errorf("%q: code %s (%s), want %s", tc.src, e.Code, e.Msg, tc.code)
			}
			if tc.contains != "" && !strings.Contains(e.Msg+" "+e.Hint, tc.contains) {
				t.Errorf("%q: %q / %q lacks %q", tc.src, e.Msg, e.Hint, tc.contains)
			}
		})
	}
}

func TestCmdFailedCarriesStatusAndStderr(t *testing.T) {
	s := newSession(t)
	v, err := s.eval("try { fail } catch e { [e.status, e.stderr] }")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := value.Inline(v), `[3, "boom\n"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestStatementOutputStreams(t *testing.T) {
	s := newSession(t)
	if _, err := s.eval("printf \"one\\n\"\necho two\nlet x = (printf 'three')\n5"); err != nil {
		t.Fatal(err)
	}
	if got, want := s.stdout.String(), "one\ntwo\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	s.stdout.Reset()
	if _, err := s.eval("fail"); err == nil {
		t.Fatal("fail in statement position did not raise")
	}
	if got := s.stdout.String() + "|" + s.stderr.String(); got != "partial\n|boom\n" {
		t.Errorf("streamed %q", got)
	}
}

func TestRedirects(t *testing.T) {
	s := newSession(t)
	if _, err := s.eval("echo a > out.txt\necho b >> out.txt\nprintf 'raw' > raw.txt\ntry { fail > f.txt } catch { 0 }"); err != nil {
		t.Fatal(err)
	}
	if got := string(s.h.files["/work/out.txt"]); got != "a\nb\n" {
		t.Errorf("out.txt = %q", got)
	}
	if got := string(s.h.files["/work/raw.txt"]); got != "raw" {
		t.Errorf("raw.txt = %q", got)
	}
	if s.stdout.Len() != 0 {
		t.Errorf("redirected output leaked to stdout: %q", s.stdout.String())
	}
	s.h.files["/work/in.txt"] = []byte("b\na\n")
	if got := s.inline("(sort < in.txt).out"); got != `"a\nb"` {
		t.Errorf("stdin redirect: %s", got)
	}
}

func TestWithRestoresOnError(t *testing.T) {
	s := newSession(t)
	_, err := s.eval(`with cwd: "/home", env: {FOO: "1"} { 1 / 0 }`)
	if err == nil {
		t.Fatal("want div_zero")
	}
	if s.in.Dir() != "/work" {
		t.Errorf("dir %s after failed with", s.in.Dir())
	}
	if _, ok := lookupEnv(s.in.Environ(), "FOO"); ok {
		t.Error("FOO leaked out of with")
	}
}

func TestExitStopsProgram(t *testing.T) {
	s := newSession(t)
	v, err := s.eval("var x = 1\nexit 3\nx = 2")
	if err != nil {
		t.Fatal(err)
	}
	if code, ok := s.in.ExitRequested(); !ok || code != 3 {
		t.Errorf("exit request %d %v", code, ok)
	}
	if v.Kind() != value.KNull {
		t.Errorf("value %s", value.Inline(v))
	}
	if got := s.inline("x"); got != "1" {
		t.Errorf("statement after exit ran: x = %s", got)
	}
}

func TestSpawnRecordsArgvAndEnv(t *testing.T) {
	s := newSession(t)
	if _, err := s.eval(`env.ZED = "z"` + "\n" + `(args "a b" (1 + 1) 2kb)`); err != nil {
		t.Fatal(err)
	}
	sp := s.h.spawns[len(s.h.spawns)-1]
	if got := strings.Join(sp.Argv, "|"); got != "/bin/args|a b|2|2kb" {
		t.Errorf("argv %q", got)
	}
	if v, _ := lookupEnv(sp.Env, "ZED"); v != "z" || sp.Dir != "/work" {
		t.Errorf("env ZED=%q dir=%q", v, sp.Dir)
	}
}
