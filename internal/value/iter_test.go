package value

import (
	"math"
	"testing"
)

func TestIterate(t *testing.T) {
	cases := []struct {
		in   Value
		want string // Inline of the items as a list; "" means not iterable
	}{
		{vcL(Int(1), Str("a")), `[1, "a"]`},
		{vcL(), "[]"},
		{vcT([]string{"a"}, []Value{Int(1)}, []Value{Int(2)}), "[{a: 1}, {a: 2}]"},
		{Range{Lo: 1, Hi: 4}, "[1, 2, 3]"},
		{Range{Lo: 2, Hi: 5, Inclusive: true}, "[2, 3, 4, 5]"},
		{Range{Lo: 5, Hi: 1}, "[]"},
		{Range{Lo: 1, Hi: 1}, "[]"},
		{Range{Lo: 1, Hi: 1, Inclusive: true}, "[1]"},
		{Range{Lo: math.MaxInt64 - 1, Hi: math.MaxInt64, Inclusive: true}, "[9223372036854775806, 9223372036854775807]"},
		{Range{Lo: 0, Hi: 1 << 40}, ""},
		{Range{Lo: math.MinInt64, Hi: math.MaxInt64, Inclusive: true}, ""},
		{Str("abc"), ""},
		{vcR("a", Int(1)), ""},
		{Int(3), ""},
	}
	for _, c := range cases {
		items, ok := Iterate(c.in)
		if ok != (c.want != "") {
			t.Errorf("Iterate(%s) ok = %v", Inline(c.in), ok)
			continue
		}
		if ok && Inline(vcL(items...)) != c.want {
			t.Errorf("Iterate(%s) = %s, want %s", Inline(c.in), Inline(vcL(items...)), c.want)
		}
	}
}

func TestRangeLenAndBounds(t *testing.T) {
	cases := []struct {
		r      Range
		n      int64
		lo, hi int64
		ok     bool
	}{
		{Range{Lo: 1, Hi: 5}, 4, 1, 5, true},
		{Range{Lo: 1, Hi: 5, Inclusive: true}, 5, 1, 6, true},
		{Range{Lo: 5, Hi: 1}, 0, 5, 1, true},
		{Range{Lo: 0, Hi: math.MaxInt64, Inclusive: true}, math.MaxInt64, 0, math.MaxInt64, false},
		{Range{Lo: math.MinInt64, Hi: math.MaxInt64}, math.MaxInt64, math.MinInt64, math.MaxInt64, true},
	}
	for _, c := range cases {
		if n := RangeLen(c.r); n != c.n {
			t.Errorf("RangeLen(%s) = %d, want %d", Inline(c.r), n, c.n)
		}
		lo, hi, ok := RangeBounds(c.r)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("RangeBounds(%s) = %d, %d, %v", Inline(c.r), lo, hi, ok)
		}
	}
}
