package namespaces

import (
	"math"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func TestMathConstants(t *testing.T) {
	m, _ := Lookup("math")
	members := m.(*value.Namespace).Members
	for name, want := range map[string]float64{
		"pi": math.Pi, "e": math.E, "tau": 2 * math.Pi, "inf": math.Inf(1), "sqrt2": math.Sqrt2,
	} {
		if got, ok := members[name].(value.Float); !ok || float64(got) != want {
			t.Errorf("math.%s = %v, want %v", name, members[name], want)
		}
	}
	if got, ok := members["nan"].(value.Float); !ok || !math.IsNaN(float64(got)) {
		t.Errorf("math.nan = %v", members["nan"])
	}
}

func TestMathFunctions(t *testing.T) {
	type fc struct {
		fn   string
		args []value.Value
		want float64
		code string
	}
	cases := []fc{
		{fn: "sqrt", args: []value.Value{i(16)}, want: 4},
		{fn: "sqrt", args: []value.Value{f(2.25)}, want: 1.5},
		{fn: "cbrt", args: []value.Value{i(27)}, want: 3},
		{fn: "pow", args: []value.Value{i(2), i(10)}, want: 1024},
		{fn: "pow", args: []value.Value{i(5), i(0)}, want: 1},
		{fn: "abs", args: []value.Value{i(-5)}, want: 5},
		{fn: "floor", args: []value.Value{f(3.7)}, want: 3},
		{fn: "ceil", args: []value.Value{f(3.2)}, want: 4},
		{fn: "round", args: []value.Value{f(3.5)}, want: 4},
		{fn: "round", args: []value.Value{f(-2.5)}, want: -3},
		{fn: "round", args: []value.Value{f(2.4)}, want: 2},
		{fn: "trunc", args: []value.Value{f(-3.9)}, want: -3},
		{fn: "min", args: []value.Value{i(-3), i(-7)}, want: -7},
		{fn: "max", args: []value.Value{i(3), f(7)}, want: 7},
		{fn: "min", args: []value.Value{f(math.NaN()), i(2)}, want: 2},
		{fn: "max", args: []value.Value{i(2), f(math.NaN())}, want: 2},
		{fn: "clamp", args: []value.Value{i(15), i(0), i(10)}, want: 10},
		{fn: "clamp", args: []value.Value{i(-5), i(0), i(10)}, want: 0},
		{fn: "clamp", args: []value.Value{i(5), i(5), i(5)}, want: 5},
		{fn: "clamp", args: []value.Value{i(5), i(10), i(0)}, code: "arg_error"},
		{fn: "hypot", args: []value.Value{i(3), i(4)}, want: 5},
		{fn: "hypot", args: []value.Value{i(0), i(0)}, want: 0},
		{fn: "ln", args: []value.Value{i(1)}, want: 0},
		{fn: "ln", args: []value.Value{f(math.E)}, want: 1},
		{fn: "log2", args: []value.Value{i(8)}, want: 3},
		{fn: "log10", args: []value.Value{i(1)}, want: 0},
		{fn: "log10", args: []value.Value{i(100)}, want: 2},
		{fn: "log10", args: []value.Value{f(1e-3)}, want: -3},
		{fn: "log", args: []value.Value{i(8), i(2)}, want: 3},
		{fn: "exp", args: []value.Value{i(0)}, want: 1},
		{fn: "sin", args: []value.Value{i(0)}, want: 0},
		{fn: "cos", args: []value.Value{i(0)}, want: 1},
		{fn: "tan", args: []value.Value{i(0)}, want: 0},
		{fn: "asin", args: []value.Value{i(0)}, want: 0},
		{fn: "acos", args: []value.Value{i(1)}, want: 0},
		{fn: "atan", args: []value.Value{i(0)}, want: 0},
		{fn: "atan2", args: []value.Value{i(0), i(1)}, want: 0},
		{fn: "atan2", args: []value.Value{i(1), i(0)}, want: math.Pi / 2},
		{fn: "sign", args: []value.Value{i(-5)}, want: -1},
		{fn: "sign", args: []value.Value{i(5)}, want: 1},
		{fn: "sign", args: []value.Value{i(0)}, want: 1},
		{fn: "sign", args: []value.Value{f(math.Copysign(0, -1))}, want: -1},
		{fn: "sqrt", args: nil, code: "arg_error"},
		{fn: "sqrt", args: []value.Value{i(1), i(2)}, code: "arg_error"},
		{fn: "pow", args: []value.Value{i(1)}, code: "arg_error"},
		{fn: "sqrt", args: []value.Value{s("4")}, code: "type_error"},
		{fn: "max", args: []value.Value{i(1), value.Nil}, code: "type_error"},
	}
	for _, c := range cases {
		t.Run(c.fn+"/"+value.Inline(value.NewList(c.args)), func(t *testing.T) {
			got, err := call(t, "math", c.fn, value.Args{Pos: c.args})
			if c.code != "" {
				ve, ok := err.(*value.Error)
				if !ok || ve.Code != c.code {
					t.Fatalf("got %v, %v; want %s", got, err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g, ok := got.(value.Float)
			if !ok {
				t.Fatalf("got %T, want float", got)
			}
			if float64(g) != c.want || math.Signbit(float64(g)) != math.Signbit(c.want) {
				t.Fatalf("got %v, want %v", float64(g), c.want)
			}
		})
	}
}

func TestMathSqrtNegativeIsNaN(t *testing.T) {
	got, err := call(t, "math", "sqrt", pos(i(-1)))
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := got.(value.Float); !ok || !math.IsNaN(float64(g)) {
		t.Fatalf("math.sqrt(-1) = %v, want nan", got)
	}
}

func TestMathNamedArgRejected(t *testing.T) {
	a := value.Args{Pos: []value.Value{i(4)}, Named: []value.NamedArg{{Name: "x", Value: i(1)}}}
	if _, err := call(t, "math", "sqrt", a); err == nil || err.(*value.Error).Code != "arg_error" {
		t.Fatalf("named argument accepted: %v", err)
	}
}
