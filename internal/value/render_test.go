package value

import (
	"math"
	"regexp"
	"testing"
	"time"
)

func TestInline(t *testing.T) {
	status0, status7 := 0, 7
	cases := []struct {
		in   Value
		want string
	}{
		{Nil, "null"},
		{nil, "null"},
		{Bool(true), "true"},
		{Bool(false), "false"},
		{Int(42), "42"},
		{Int(-7), "-7"},
		{Float(3.14), "3.14"},
		{Float(1e9), "1000000000"},
		{Float(4), "4"},
		{Float(2.5), "2.5"},
		{Float(-0.5), "-0.5"},
		{Float(1e-7), "0.0000001"},
		{Float(4.140000000000001), "4.140000000000001"},
		{Float(math.Pi), "3.141592653589793"},
		{Float(math.Inf(1)), "inf"},
		{Float(math.Inf(-1)), "-inf"},
		{Float(math.NaN()), "nan"},
		{Str("shoal"), `"shoal"`},
		{Str("a\nb"), `"a\nb"`},
		{Str(`a\nb`), `"a\\nb"`},
		{Str("a\tb"), `"a\tb"`},
		{Str("a\x00b"), `"a\0b"`},
		{Str("a\rb"), `"a\rb"`},
		{Str(`say "hi"`), `"say \"hi\""`},
		{Str("a{b}"), `"a{b}"`},
		{Str("café"), `"café"`},
		{Str("bad\xffbyte"), "\"bad\uFFFDbyte\""},
		{Str(""), `""`},
		{Bytes("hi"), "<bytes 2b>"},
		{Path("a.txt"), "a.txt"},
		{Path("my file.txt"), `"my file.txt"`},
		{&Glob{Pattern: "*.rs", Hidden: true}, "*.rs"},
		{&Regex{Source: `\d+`, Re: regexp.MustCompile(`\d+`)}, `re"\d+"`},
		{&Regex{Source: `a\.b`}, `re"a\.b"`},
		{&Regex{Source: `say "x"`}, `re"say \"x\""`},
		{Size(237), "237b"},
		{Size(1020), "1.02kb"},
		{Duration(-90 * time.Second), "-1m30s"},
		{Duration(0), "0s"},
		{vcTime(23, 15, 0), "23:15"},
		{vcTime(22, 30, 15), "22:30:15"},
		{vcDT(t, "2026-07-09T14:00Z"), "2026-07-09T14:00:00Z"},
		{vcDT(t, "2026-07-16T09:30:00-07:00"), "2026-07-16T16:30:00Z"},
		{Range{Lo: 1, Hi: 4}, "1..4"},
		{Range{Lo: 1, Hi: 3, Inclusive: true}, "1..=3"},
		{Range{Lo: -2, Hi: 7}, "-2..7"},
		{vcL(), "[]"},
		{vcL(Int(1), Int(2), Int(3)), "[1, 2, 3]"},
		{vcL(vcL(Int(1), Str("a")), vcL()), `[[1, "a"], []]`},
		{vcR(), "{}"},
		{vcR("name", Str("shoal"), "n", Int(2)), `{name: "shoal", n: 2}`},
		{vcR("name", Str("shoal"), "tags", vcL(Int(1), Int(2))), `{name: "shoal", tags: [1, 2]}`},
		{vcR("a b", Int(1), "_x1", Int(2), "1a", Int(3), "", Int(4)), `{"a b": 1, _x1: 2, "1a": 3, "": 4}`},
		{vcT([]string{"a", "b"}, []Value{Str("1"), Str("2")}, []Value{Str("3"), Str("4")}), `[{a: "1", b: "2"}, {a: "3", b: "4"}]`},
		{vcT([]string{"a"}), "[]"},
		{vcL(vcDT(t, "2026-07-09T14:00Z"), vcDT(t, "2026-01-01T00:00Z")), "[2026-07-09T14:00:00Z, 2026-01-01T00:00:00Z]"},
		{&Outcome{Status: &status0}, "outcome(status: 0, ok: true)"},
		{&Outcome{Status: &status7}, "outcome(status: 7, ok: false)"},
		{&Outcome{Signal: "SIGSEGV"}, `outcome(status: null, signal: "SIGSEGV", ok: false)`},
		{Errorf("div_zero", "division by zero"), "div_zero: division by zero"},
		{NewSecret("token", "hunter2"), "secret(token)"},
		{&Builtin{Name: "len"}, "<builtin len>"},
		{&Namespace{Name: "math"}, "<namespace math>"},
		{vcOpaque{}, "<stream>"},
		{vcNamed{}, "<fn greet>"},
	}
	for _, c := range cases {
		if got := Inline(c.in); got != c.want {
			t.Errorf("Inline(%#v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// vcNamed is a foreign value that renders itself.
type vcNamed struct{}

func (vcNamed) Kind() Kind           { return KClosure }
func (vcNamed) InlineString() string { return "<fn greet>" }

func TestInterp(t *testing.T) {
	cases := []struct {
		in   Value
		want string
	}{
		{Str("hi"), "hi"},
		{Str("a\nb"), "a\nb"},
		{Int(42), "42"},
		{vcL(Int(1), Int(2)), "[1, 2]"},
		{vcL(Str("a")), `["a"]`},
		{vcR("a", Int(1)), "{a: 1}"},
		{Path("a.txt"), "a.txt"},
		{Path("my file"), "my file"},
		{&Glob{Pattern: "*.txt"}, "*.txt"},
		{5 * vcKB, "5kb"},
		{5 * vcSec, "5s"},
		{vcTime(10, 30, 0), "10:30"},
		{vcDT(t, "2026-07-09T00:00Z"), "2026-07-09T00:00:00Z"},
		{Bool(true), "true"},
		{Nil, "null"},
	}
	for _, c := range cases {
		if got := Interp(c.in); got != c.want {
			t.Errorf("Interp(%s) = %q, want %q", Inline(c.in), got, c.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	cases := []struct {
		in   Value
		want string
	}{
		{nil, "null"},
		{Nil, "null"},
		{Int(1), "int"},
		{Float(1), "float"},
		{Str(""), "str"},
		{Size(1), "size"},
		{vcL(), "list"},
		{vcR(), "record"},
		{vcT(nil), "table"},
		{&Builtin{}, "closure"},
		{&Outcome{}, "outcome"},
		{Errorf("x", "y"), "error"},
	}
	for _, c := range cases {
		if got := TypeName(c.in); got != c.want {
			t.Errorf("TypeName(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func BenchmarkInlineList(b *testing.B) {
	l := vcL(Int(1), Str("two"), Float(3.5), vcR("k", Size(4096)))
	for i := 0; i < b.N; i++ {
		vcSink += len(Inline(l))
	}
}
