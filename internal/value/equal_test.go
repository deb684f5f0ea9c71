package value

import (
	"math"
	"regexp"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

func TestEqual(t *testing.T) {
	out := &Outcome{}
	bi := &Builtin{Name: "f"}
	nan := Float(math.NaN())
	cases := []struct {
		name string
		a, b Value
		want bool
	}{
		{"null null", Nil, Nil, true},
		{"nil interface null", nil, Nil, true},
		{"null zero", Nil, Int(0), false},
		{"int int", Int(5), Int(5), true},
		{"int float", Int(5), Float(5), true},
		{"float int", Float(5), Int(5), true},
		{"int float fraction", Int(5), Float(5.5), false},
		{"big int vs rounded float", Int(1<<53 + 1), Float(1 << 53), false},
		{"nan", nan, nan, false},
		{"int nan", Int(0), nan, false},
		{"int size", Int(5), 5 * vcKB, false},
		{"bool int", Bool(true), Int(1), false},
		{"int str", Int(1), Str("1"), false},
		{"list str", vcL(Int(1), Int(2)), Str("ab"), false},
		{"str str", Str("a"), Str("a"), true},
		{"path path", Path("a.txt"), Path("a.txt"), true},
		{"path str", Path("a.txt"), Str("a.txt"), true},
		{"str path", Str("a.txt"), Path("a.txt"), true},
		{"path str lossy", Path("a\xff"), Str("a\uFFFD"), true},
		{"bytes", Bytes("hi"), Bytes("hi"), true},
		{"bytes differ", Bytes("hi"), Bytes("bye"), false},
		{"bytes str", Bytes("hi"), Str("hi"), false},
		{"size", 1 * vcKB, Size(1000), true},
		{"kb is not kib", 1 * vcKB, Size(1024), false},
		{"duration units", 5 * vcSec, Duration(5000 * 1000 * 1000), true},
		{"time", vcTime(10, 0, 0), vcTime(10, 0, 0), true},
		{"datetime date-only", vcDT(t, "2026-07-09"), vcDT(t, "2026-07-09T00:00Z"), true},
		{"datetime zones", vcDT(t, "2026-07-09T16:00+02:00"), vcDT(t, "2026-07-09T14:00Z"), true},
		{"datetime str", vcDT(t, "2026-07-09T00:00Z"), Str("2026-07-09"), false},
		{"range", Range{Lo: 1, Hi: 4}, Range{Lo: 1, Hi: 4}, true},
		{"range inclusive differs", Range{Lo: 1, Hi: 4}, Range{Lo: 1, Hi: 4, Inclusive: true}, false},
		{"glob pattern", &Glob{Pattern: "*.rs"}, &Glob{Pattern: "*.rs", Hidden: true}, true},
		{"regex source", &Regex{Source: `\d+`, Re: regexp.MustCompile(`\d+`)}, &Regex{Source: `\d+`}, true},
		{"list", vcL(Int(1), Int(2)), vcL(Int(1), Int(2)), true},
		{"list order", vcL(Int(1), Int(2)), vcL(Int(2), Int(1)), false},
		{"list length", vcL(Int(1)), vcL(Int(1), Int(1)), false},
		{"nested list float", vcL(vcL(Int(1))), vcL(vcL(Float(1))), true},
		{"record key order", vcR("a", Int(1), "b", Int(2)), vcR("b", Int(2), "a", Int(1)), true},
		{"record nested", vcR("a", vcR("b", Int(1))), vcR("a", vcR("b", Int(1))), true},
		{"record differs", vcR("a", Int(1)), vcR("a", Int(2)), false},
		{"record missing key", vcR("a", Int(1), "b", Int(2)), vcR("a", Int(1), "c", Int(2)), false},
		{"record size", vcR("a", Int(1)), vcR("a", Int(1), "b", Int(2)), false},
		{"empty records", vcR(), vcR(), true},
		{"table list", vcT([]string{"a"}, []Value{Int(1)}), vcL(vcR("a", Int(1))), true},
		{"list table", vcL(vcR("a", Int(1))), vcT([]string{"a"}, []Value{Int(1)}), true},
		{"table list mismatch", vcT([]string{"a"}, []Value{Int(1)}), vcL(Int(1)), false},
		{"table table col order", vcT([]string{"a", "b"}, []Value{Int(1), Int(2)}), vcT([]string{"b", "a"}, []Value{Int(2), Int(1)}), true},
		{"table table differs", vcT([]string{"a"}, []Value{Int(1)}), vcT([]string{"a"}, []Value{Int(2)}), false},
		{"error", Errorf("div_zero", "x"), Errorf("div_zero", "x"), true},
		{"error msg", Errorf("div_zero", "x"), Errorf("div_zero", "y"), false},
		{"secret", NewSecret("k", "v"), NewSecret("k", "v"), true},
		{"secret content", NewSecret("k", "v"), NewSecret("k", "w"), false},
		{"outcome identity", out, out, true},
		{"outcome distinct", out, &Outcome{}, false},
		{"builtin identity", bi, bi, true},
		{"builtin distinct", bi, &Builtin{Name: "f"}, false},
		{"foreign uncomparable", vcOpaque{[]int{1}}, vcOpaque{[]int{1}}, false},
		{"equaler", vcEq{1}, vcEq{1}, true},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: Equal(%s, %s) = %v, want %v", c.name, Inline(c.a), Inline(c.b), got, c.want)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("%s: Equal is not symmetric", c.name)
		}
	}
}

// vcOpaque is a foreign value type that is not comparable with ==.
type vcOpaque struct{ s []int }

func (vcOpaque) Kind() Kind { return KStream }

// vcEq is a foreign value type with its own equality.
type vcEq struct{ n int }

func (vcEq) Kind() Kind { return KTask }

func (e vcEq) EqualValue(o Value) bool {
	x, ok := o.(vcEq)
	return ok && x.n == e.n
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name string
		a, b Value
		want int
		err  bool
	}{
		{"int", Int(1), Int(2), -1, false},
		{"int eq", Int(2), Int(2), 0, false},
		{"int float", Int(2), Float(1.5), 1, false},
		{"float int", Float(1.5), Int(2), -1, false},
		{"int float exact", Int(1<<53 + 1), Float(1 << 53), 1, false},
		{"int vs huge float", Int(math.MaxInt64), Float(1e19), -1, false},
		{"int vs tiny float", Int(math.MinInt64), Float(-1e19), 1, false},
		{"negative fraction", Int(-2), Float(-1.5), -1, false},
		{"neg int float equal", Int(-3), Float(-3), 0, false},
		{"float inf", Float(math.Inf(1)), Int(5), 1, false},
		{"str bytewise", Str("Z"), Str("a"), -1, false},
		{"str", Str("b"), Str("a"), 1, false},
		{"path", Path("a.txt"), Path("b.txt"), -1, false},
		{"size", 1 * vcKB, Size(999), 1, false},
		{"duration", 5 * vcSec, 10 * vcSec, -1, false},
		{"time", vcTime(10, 0, 0), vcTime(10, 1, 0), -1, false},
		{"datetime", vcDT(t, "2026-07-09T14:00Z"), vcDT(t, "2026-07-08T14:00Z"), 1, false},
		{"bool", Bool(false), Bool(true), -1, false},
		{"bool eq", Bool(true), Bool(true), 0, false},
		{"nan", Float(math.NaN()), Float(1), 0, true},
		{"nan right", Int(1), Float(math.NaN()), 0, true},
		{"str int", Str("a"), Int(1), 0, true},
		{"path str", Path("a"), Str("a"), 0, true},
		{"size int", Size(1), Int(1), 0, true},
		{"lists", vcL(Int(1)), vcL(Int(2)), 0, true},
		{"null", Nil, Nil, 0, true},
		{"records", vcR("k", Int(1)), vcR("k", Str("a")), 0, true},
	}
	for _, c := range cases {
		got, err := Compare(c.a, c.b)
		if c.err {
			if vcCode(err) != "type_error" {
				t.Errorf("%s: Compare err = %v, want type_error", c.name, err)
			} else if e := err.(*Error); !regexpCannot.MatchString(e.Msg) {
				t.Errorf("%s: message %q", c.name, e.Msg)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: Compare = %d, %v; want %d", c.name, got, err, c.want)
		}
		if back, err := Compare(c.b, c.a); err != nil || back != -c.want {
			t.Errorf("%s: reversed Compare = %d, %v; want %d", c.name, back, err, -c.want)
		}
	}
}

var regexpCannot = regexp.MustCompile(`^cannot compare \w+ with \w+$`)

func TestCompareMessage(t *testing.T) {
	_, err := Compare(Int(1), Str("a"))
	if err == nil || err.Error() != "type_error: cannot compare int with str" {
		t.Errorf("got %v", err)
	}
	_, err = Compare(Float(math.NaN()), Float(1))
	if err == nil || err.Error() != "type_error: cannot compare nan with float" {
		t.Errorf("got %v", err)
	}
}

var vcSink int

func BenchmarkEqualInts(b *testing.B) {
	x, y := Value(Int(12345)), Value(Int(12346))
	n := 0
	for i := 0; i < b.N; i++ {
		if Equal(x, y) {
			n++
		}
	}
	vcSink = n
}

func BenchmarkCompareInts(b *testing.B) {
	x, y := Value(Int(12345)), Value(Int(12346))
	n := 0
	for i := 0; i < b.N; i++ {
		c, _ := Compare(x, y)
		n += c
	}
	vcSink = n
}

func BenchmarkEqualStrs(b *testing.B) {
	x, y := Value(Str("hello world")), Value(Str("hello world"))
	n := 0
	for i := 0; i < b.N; i++ {
		if Equal(x, y) {
			n++
		}
	}
	vcSink = n
}

func BenchmarkEqualRecords(b *testing.B) {
	x := vcR("name", Str("a"), "size", Size(10), "n", Int(3))
	y := vcR("name", Str("a"), "size", Size(10), "n", Int(3))
	n := 0
	for i := 0; i < b.N; i++ {
		if Equal(x, y) {
			n++
		}
	}
	vcSink = n
}

func BenchmarkBinaryOpAddInts(b *testing.B) {
	x, y := Value(Int(12345)), Value(Int(1))
	for i := 0; i < b.N; i++ {
		v, _ := BinaryOp(syntax.OpAdd, x, y)
		vcSink = int(v.(Int))
	}
}

func BenchmarkBinaryOpAddSmallInts(b *testing.B) {
	x, y := Value(Int(12)), Value(Int(1))
	for i := 0; i < b.N; i++ {
		v, _ := BinaryOp(syntax.OpAdd, x, y)
		vcSink = int(v.(Int))
	}
}

func BenchmarkBinaryOpLtInts(b *testing.B) {
	x, y := Value(Int(12345)), Value(Int(1))
	for i := 0; i < b.N; i++ {
		v, _ := BinaryOp(syntax.OpLt, x, y)
		if v.(Bool) {
			vcSink++
		}
	}
}
