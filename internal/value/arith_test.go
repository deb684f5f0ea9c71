package value

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

type vcOpCase struct {
	name    string
	op      syntax.BinOp
	a, b    Value
	want    string // Inline of the result, when no error is expected
	code    string // expected error code
	contain string // expected substring of the error message
}

func vcRunOps(t *testing.T, cases []vcOpCase) {
	t.Helper()
	for _, c := range cases {
		got, err := BinaryOp(c.op, c.a, c.b)
		if c.code != "" {
			if err == nil {
				t.Errorf("%s: got %s, want error %s", c.name, Inline(got), c.code)
				continue
			}
			if vcCode(err) != c.code {
				t.Errorf("%s: error %v, want code %s", c.name, err, c.code)
			}
			if c.contain != "" && !strings.Contains(err.Error(), c.contain) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, c.contain)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %v", c.name, err)
			continue
		}
		if s := Inline(got); s != c.want {
			t.Errorf("%s: got %s, want %s", c.name, s, c.want)
		}
	}
}

func TestBinaryOpNumbers(t *testing.T) {
	const maxI = Int(math.MaxInt64)
	const minI = Int(math.MinInt64)
	vcRunOps(t, []vcOpCase{
		{"add", syntax.OpAdd, Int(2), Int(3), "5", "", ""},
		{"sub", syntax.OpSub, Int(9), Int(4), "5", "", ""},
		{"mul", syntax.OpMul, Int(6), Int(7), "42", "", ""},
		{"rem", syntax.OpRem, Int(10), Int(4), "2", "", ""},
		{"float promotion", syntax.OpAdd, Int(2), Float(0.5), "2.5", "", ""},
		{"float+int", syntax.OpAdd, Float(0.5), Int(2), "2.5", "", ""},
		{"int-float", syntax.OpSub, Int(9), Float(0.5), "8.5", "", ""},
		{"float-int", syntax.OpSub, Float(0.5), Int(9), "-8.5", "", ""},
		{"int*float", syntax.OpMul, Int(3), Float(0.5), "1.5", "", ""},
		{"int/float", syntax.OpDiv, Int(5), Float(2.0), "2.5", "", ""},
		{"int div truncates", syntax.OpDiv, Int(10), Int(3), "3", "", ""},
		{"int div neg", syntax.OpDiv, Int(-7), Int(2), "-3", "", ""},
		{"int div neg divisor", syntax.OpDiv, Int(5), Int(-2), "-2", "", ""},
		{"int div both neg", syntax.OpDiv, Int(-5), Int(-2), "2", "", ""},
		{"rem follows dividend", syntax.OpRem, Int(-7), Int(3), "-1", "", ""},
		{"rem positive dividend", syntax.OpRem, Int(7), Int(-3), "1", "", ""},
		{"rem min by -1", syntax.OpRem, minI, Int(-1), "0", "", ""},
		{"float rem", syntax.OpRem, Float(7.5), Int(2), "1.5", "", ""},
		{"div zero", syntax.OpDiv, Int(1), Int(0), "", "div_zero", ""},
		{"rem zero", syntax.OpRem, Int(5), Int(0), "", "div_zero", ""},
		{"float div zero", syntax.OpDiv, Float(1), Float(0), "inf", "", ""},
		{"float neg div zero", syntax.OpDiv, Float(-1), Float(0), "-inf", "", ""},
		{"zero div zero", syntax.OpDiv, Float(0), Float(0), "nan", "", ""},
		{"mixed div zero", syntax.OpDiv, Float(1), Int(0), "inf", "", ""},
		{"add overflow", syntax.OpAdd, maxI, Int(1), "", "overflow", ""},
		{"sub overflow", syntax.OpSub, minI, Int(1), "", "overflow", ""},
		{"mul overflow", syntax.OpMul, maxI, Int(2), "", "overflow", ""},
		{"mul min by -1", syntax.OpMul, minI, Int(-1), "", "overflow", ""},
		{"mul min by 1", syntax.OpMul, minI, Int(1), "-9223372036854775808", "", ""},
		{"mul neg to min", syntax.OpMul, Int(-1 << 62), Int(2), "-9223372036854775808", "", ""},
		{"div min by -1", syntax.OpDiv, minI, Int(-1), "", "overflow", ""},
		{"sub to min", syntax.OpSub, Int(-9223372036854775807), Int(1), "-9223372036854775808", "", ""},
		{"float sum integral", syntax.OpAdd, Float(1.5), Float(2.5), "4", "", ""},
		{"float rendering", syntax.OpAdd, Float(3.14), Int(1), "4.140000000000001", "", ""},
		{"str concat", syntax.OpAdd, Str("a"), Str("b"), `"ab"`, "", ""},
		{"str plus int", syntax.OpAdd, Str("a"), Int(1), "", "type_error", "str"},
		{"bool plus bool", syntax.OpAdd, Bool(true), Bool(false), "", "type_error", ""},
		{"list concat", syntax.OpAdd, vcL(Int(1), Int(2)), vcL(Int(3)), "[1, 2, 3]", "", ""},
		{"list plus int", syntax.OpAdd, vcL(Int(1), Int(2)), Int(1), "", "type_error", ""},
		{"record plus record", syntax.OpAdd, vcR("a", Int(1)), vcR("b", Int(2)), "", "type_error", ""},
		{"null plus int", syntax.OpSub, Nil, Int(1), "", "type_error", ""},
	})
}

func TestBinaryOpSizes(t *testing.T) {
	vcRunOps(t, []vcOpCase{
		{"size+size", syntax.OpAdd, 1 * vcKB, Size(500), "1.5kb", "", ""},
		{"size+size rolls", syntax.OpAdd, Size(500), Size(500), "1kb", "", ""},
		{"size-size", syntax.OpSub, 2 * vcKB, Size(500), "1.5kb", "", ""},
		{"size-size negative", syntax.OpSub, 1 * vcKB, 2 * vcKB, "", "type_error", "negative"},
		{"size/size", syntax.OpDiv, 10 * vcKB, 4 * vcKB, "2.5", "", ""},
		{"mb/kb ratio", syntax.OpDiv, 1000 * vcKB, 1 * vcKB, "1000", "", ""},
		{"size*int", syntax.OpMul, 3 * vcKB, Int(4), "12kb", "", ""},
		{"int*size", syntax.OpMul, Int(4), 3 * vcKB, "12kb", "", ""},
		{"size*0", syntax.OpMul, 1 * vcKB, Int(0), "0b", "", ""},
		{"size/int", syntax.OpDiv, 10 * vcKB, Int(4), "2.5kb", "", ""},
		{"mb/2", syntax.OpDiv, 1000 * vcKB, Int(2), "500kb", "", ""},
		{"0kb/5", syntax.OpDiv, Size(0), Int(5), "0b", "", ""},
		{"float*size", syntax.OpMul, Float(1.5), 2 * vcKB, "3kb", "", ""},
		{"size*float", syntax.OpMul, 2 * vcKB, Float(1.5), "3kb", "", ""},
		{"size*neg int", syntax.OpMul, 10 * vcKB, Int(-1), "", "type_error", "negative"},
		{"size/neg int", syntax.OpDiv, 10 * vcKB, Int(-1), "", "type_error", "negative"},
		{"size*neg float", syntax.OpMul, Size(1000), Float(-1), "", "type_error", "negative"},
		{"neg float*size", syntax.OpMul, Float(-1), Size(1000), "", "type_error", "negative"},
		{"float*size overflow", syntax.OpMul, Float(100), Size(9000000000000000000), "", "overflow", "size overflow"},
		{"size*int overflow", syntax.OpMul, Size(9000000000000000000), Int(2), "", "overflow", "size overflow"},
		{"size+size overflow", syntax.OpAdd, Size(math.MaxInt64), Size(1), "", "overflow", "size overflow"},
		{"size/0", syntax.OpDiv, 10 * vcKB, Int(0), "", "div_zero", ""},
		{"size/0b", syntax.OpDiv, 10 * vcKB, Size(0), "", "div_zero", ""},
		{"size/float", syntax.OpDiv, 10 * vcKB, Float(2), "", "type_error", ""},
		{"int+size", syntax.OpAdd, Int(1), Size(1), "", "type_error", ""},
		{"size+duration", syntax.OpAdd, Size(1), vcSec, "", "type_error", ""},
		{"size%int", syntax.OpRem, Size(10), Int(3), "", "type_error", ""},
	})
}

func TestBinaryOpDurations(t *testing.T) {
	h, m := Duration(time.Hour), Duration(time.Minute)
	week := Duration(7 * 24 * time.Hour)
	vcRunOps(t, []vcOpCase{
		{"d-d", syntax.OpSub, 2 * h, 30 * m, "1h30m", "", ""},
		{"d+d", syntax.OpAdd, 30 * m, 30 * m, "1h", "", ""},
		{"d-self", syntax.OpSub, 5 * vcSec, 5 * vcSec, "0s", "", ""},
		{"d/d", syntax.OpDiv, 90 * vcSec, 60 * vcSec, "1.5", "", ""},
		{"d*int", syntax.OpMul, 30 * m, Int(2), "1h", "", ""},
		{"int*d", syntax.OpMul, Int(2), 30 * m, "1h", "", ""},
		{"d/int", syntax.OpDiv, 90 * vcSec, Int(3), "30s", "", ""},
		{"float*d", syntax.OpMul, Float(1.5), 30 * vcSec, "45s", "", ""},
		{"d*float", syntax.OpMul, 30 * vcSec, Float(1.5), "45s", "", ""},
		{"d*neg float", syntax.OpMul, 5 * vcSec, Float(-1), "-5s", "", ""},
		{"d/0", syntax.OpDiv, 30 * vcSec, Int(0), "", "div_zero", ""},
		{"d/0s", syntax.OpDiv, 30 * vcSec, Duration(0), "", "div_zero", ""},
		{"d+int", syntax.OpAdd, vcSec, Int(1), "", "type_error", ""},
		{"d/float", syntax.OpDiv, vcSec, Float(2), "", "type_error", ""},
		{"add overflow", syntax.OpAdd, Duration(math.MaxInt64/2 + 1), Duration(math.MaxInt64/2 + 1), "", "overflow", "duration overflow"},
		{"mul int overflow", syntax.OpMul, 999999 * week, Int(999999999), "", "overflow", "duration overflow"},
		{"mul float overflow", syntax.OpMul, 5000 * week, Float(1e9), "", "overflow", "duration overflow"},
		{"sub overflow", syntax.OpSub, Duration(math.MinInt64), vcSec, "", "overflow", "duration overflow"},
		{"d*nan", syntax.OpMul, vcSec, Float(math.NaN()), "", "type_error", ""},
	})
}

func TestBinaryOpDateTimes(t *testing.T) {
	h := Duration(time.Hour)
	at := vcDT(t, "2026-07-09T14:00Z")
	vcRunOps(t, []vcOpCase{
		{"dt-d", syntax.OpSub, at, h, "2026-07-09T13:00:00Z", "", ""},
		{"d+dt commutes", syntax.OpAdd, h, at, "2026-07-09T15:00:00Z", "", ""},
		{"dt+d", syntax.OpAdd, vcDT(t, "2026-07-09T00:00Z"), 24 * h, "2026-07-10T00:00:00Z", "", ""},
		{"dt-dt", syntax.OpSub, at, vcDT(t, "2026-07-09T12:30Z"), "1h30m", "", ""},
		{"dt-dt day", syntax.OpSub, at, vcDT(t, "2026-07-08T14:00Z"), "1d", "", ""},
		{"dt-dt month", syntax.OpSub, vcDT(t, "2026-03-01T00:00Z"), vcDT(t, "2026-02-01T00:00Z"), "4w", "", ""},
		{"dt-dt negative", syntax.OpSub, vcDT(t, "2026-07-09T12:30Z"), at, "-1h30m", "", ""},
		{"dt-dt across zones", syntax.OpSub, vcDT(t, "2026-07-09T16:00+02:00"), at, "0s", "", ""},
		{"dt+dt", syntax.OpAdd, at, vcDT(t, "2026-07-09T15:00Z"), "", "type_error", ""},
		{"d-dt", syntax.OpSub, vcSec, at, "", "type_error", ""},
		{"dt too far", syntax.OpAdd, vcDT(t, "9999-12-31T00:00Z"), 48 * h, "", "overflow", "datetime"},
		{"dt-dt overflow", syntax.OpSub, vcDT(t, "9999-01-01"), vcDT(t, "0001-01-01"), "", "overflow", "duration overflow"},
		{"dt-min duration", syntax.OpSub, at, Duration(math.MinInt64), "", "overflow", ""},
	})
}

func TestBinaryOpCompareAndIn(t *testing.T) {
	vcRunOps(t, []vcOpCase{
		{"lt", syntax.OpLt, Int(2), Int(3), "true", "", ""},
		{"le", syntax.OpLe, Int(2), Int(2), "true", "", ""},
		{"gt", syntax.OpGt, Int(3), Int(2), "true", "", ""},
		{"ge", syntax.OpGe, Int(3), Int(3), "true", "", ""},
		{"ne", syntax.OpNe, Int(2), Int(3), "true", "", ""},
		{"eq int float", syntax.OpEq, Int(5), Float(5), "true", "", ""},
		{"eq cross type", syntax.OpEq, Int(5), 5 * vcKB, "false", "", ""},
		{"str lt int", syntax.OpLt, Str("a"), Int(1), "", "type_error", "cannot compare"},
		{"nan lt", syntax.OpLt, Float(math.NaN()), Float(1), "", "type_error", "cannot compare"},
		{"Z before a", syntax.OpLt, Str("Z"), Str("a"), "true", "", ""},
		{"time order", syntax.OpLt, vcTime(10, 0, 0), vcTime(10, 1, 0), "true", "", ""},
		{"dur order", syntax.OpLt, 5 * vcSec, 10 * vcSec, "true", "", ""},
		{"path order", syntax.OpLt, Path("a.txt"), Path("b.txt"), "true", "", ""},
		{"in list", syntax.OpIn, Int(2), vcL(Int(1), Int(2), Int(3)), "true", "", ""},
		{"not in list", syntax.OpIn, Int(9), vcL(Int(1), Int(2), Int(3)), "false", "", ""},
		{"in empty list", syntax.OpIn, Str("a"), vcL(), "false", "", ""},
		{"list not in itself", syntax.OpIn, vcL(Int(1), Int(2)), vcL(Int(1), Int(2)), "false", "", ""},
		{"float in int list", syntax.OpIn, Float(2), vcL(Int(1), Int(2)), "true", "", ""},
		{"substring", syntax.OpIn, Str("ell"), Str("hello"), "true", "", ""},
		{"int in str", syntax.OpIn, Int(1), Str("1"), "", "type_error", ""},
		{"record key", syntax.OpIn, Str("a"), vcR("a", Int(1), "b", Int(2)), "true", "", ""},
		{"record missing key", syntax.OpIn, Str("z"), vcR("a", Int(1)), "false", "", ""},
		{"range member", syntax.OpIn, Int(3), Range{Lo: 1, Hi: 5}, "true", "", ""},
		{"range end excluded", syntax.OpIn, Int(5), Range{Lo: 1, Hi: 5}, "false", "", ""},
		{"range inclusive end", syntax.OpIn, Int(5), Range{Lo: 1, Hi: 5, Inclusive: true}, "true", "", ""},
		{"empty range", syntax.OpIn, Int(3), Range{Lo: 3, Hi: 3}, "false", "", ""},
		{"float in range", syntax.OpIn, Float(2.5), Range{Lo: 1, Hi: 5}, "false", "", ""},
		{"str in range", syntax.OpIn, Str("a"), Range{Lo: 1, Hi: 5}, "", "type_error", ""},
		{"in int", syntax.OpIn, Int(1), Int(1), "", "type_error", ""},
		{"row in table", syntax.OpIn, vcR("a", Int(2)), vcT([]string{"a"}, []Value{Int(1)}, []Value{Int(2)}), "true", "", ""},
		{"logical op rejected", syntax.OpAnd, Bool(true), Bool(true), "", "type_error", ""},
	})
}

func TestNegate(t *testing.T) {
	cases := []struct {
		in   Value
		want string
		code string
	}{
		{Int(5), "-5", ""},
		{Float(2.5), "-2.5", ""},
		{5 * vcSec, "-5s", ""},
		{Duration(-90 * time.Second), "1m30s", ""},
		{Int(math.MinInt64), "", "overflow"},
		{Duration(math.MinInt64), "", "overflow"},
		{5 * vcKB, "", "type_error"},
		{Bool(true), "", "type_error"},
		{Str("a"), "", "type_error"},
	}
	for _, c := range cases {
		got, err := Negate(c.in)
		if c.code != "" {
			if vcCode(err) != c.code {
				t.Errorf("Negate(%s) err = %v, want %s", Inline(c.in), err, c.code)
			}
			continue
		}
		if err != nil || Inline(got) != c.want {
			t.Errorf("Negate(%s) = %v, %v; want %s", Inline(c.in), got, err, c.want)
		}
	}
}

func TestTableConcat(t *testing.T) {
	a := vcT([]string{"n"}, []Value{Int(1)})
	b := vcT([]string{"n"}, []Value{Int(2)})
	got, err := BinaryOp(syntax.OpAdd, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.(*Table); !ok || Inline(got) != "[{n: 1}, {n: 2}]" {
		t.Errorf("table+table = %T %s", got, Inline(got))
	}
	got, err = BinaryOp(syntax.OpAdd, a, vcL(vcR("m", Int(3))))
	if err != nil {
		t.Fatal(err)
	}
	if Inline(got) != "[{n: 1}, {m: 3}]" {
		t.Errorf("table+list = %s", Inline(got))
	}
}

func TestIntValue(t *testing.T) {
	for _, n := range []int64{math.MinInt64, -513, -512, -1, 0, 255, 256, 2047, 2048, math.MaxInt64} {
		v := IntValue(n)
		if x, ok := v.(Int); !ok || int64(x) != n {
			t.Errorf("IntValue(%d) = %#v", n, v)
		}
	}
	for _, n := range []int64{-512, -1, 0, 7, 255, 256, 1000, 2047} {
		if allocs := testing.AllocsPerRun(100, func() { vcSink += int(IntValue(n).(Int)) }); allocs != 0 {
			t.Errorf("IntValue(%d) allocates %v times", n, allocs)
		}
	}
}
