package value

import (
	"math"
	"testing"
)

func TestNumMethods(t *testing.T) {
	mtRun(t, []mtCase{
		{name: "abs-int", recv: Int(-5), method: "abs", want: "5", wantKind: KInt},
		{name: "abs-float", recv: Float(-2.5), method: "abs", want: "2.5"},
		{name: "abs-min-int", recv: Int(math.MinInt64), method: "abs", err: "overflow"},
		{name: "round-half-up", recv: Float(2.5), method: "round", want: "3"},
		{name: "round-half-away-neg", recv: Float(-2.5), method: "round", want: "-3"},
		{name: "round-neg-half", recv: Float(-3.5), method: "round", want: "-4"},
		{name: "floor-neg", recv: Float(-3.5), method: "floor", want: "-4"},
		{name: "ceil-neg", recv: Float(-3.5), method: "ceil", want: "-3"},
		{name: "floor", recv: Float(3.6), method: "floor", want: "3", wantKind: KFloat},
		{name: "ceil", recv: Float(3.2), method: "ceil", want: "4"},
		{name: "round-2", recv: Float(3.14159), method: "round", args: mtArgs(2), want: "3.14"},
		{name: "round-3", recv: Float(22.0 / 7.0), method: "round", args: mtArgs(3), want: "3.143"},
		{name: "round-0", recv: Float(3.7), method: "round", args: mtArgs(0), want: "4"},
		{name: "floor-2", recv: Float(3.14159), method: "floor", args: mtArgs(2), want: "3.14"},
		{name: "ceil-2", recv: Float(3.14159), method: "ceil", args: mtArgs(2), want: "3.15"},
		{name: "round-int", recv: Int(42), method: "round", args: mtArgs(3), want: "42", wantKind: KInt},
		{name: "round-huge", recv: Float(1.23456), method: "round", args: mtArgs(400), want: "1.23456"},
		{name: "floor-huge", recv: Float(1.5), method: "floor", args: mtArgs(400), want: "1.5"},
		{name: "ceil-huge", recv: Float(123.456), method: "ceil", args: mtArgs(999), want: "123.456"},
		{name: "round-mid-precision", recv: Float(1.23456), method: "round", args: mtArgs(300), want: "1.23456"},
		{name: "round-negative-places", recv: Float(1.5), method: "round", args: mtArgs(-1), err: "type_error"},
		{name: "round-nan", recv: Float(math.NaN()), method: "round", want: "nan"},
		{name: "int-str", recv: Int(42), method: "str", want: `"42"`},
		{name: "float-str", recv: Float(1.5), method: "str", want: `"1.5"`},
		{name: "bool-str", recv: Bool(true), method: "str", want: `"true"`},
		{name: "int-len", recv: Int(5), method: "len", err: "type_error"},
		{name: "bool-len", recv: Bool(true), method: "len", err: "type_error"},
		{name: "duration-abs", recv: Duration(0), method: "abs", err: "type_error"},
	})
}
