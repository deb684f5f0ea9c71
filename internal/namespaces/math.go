package namespaces

import (
	"math"

	"github.com/shoalgo/shoal/internal/value"
)

func mathNamespace() *value.Namespace {
	consts := map[string]value.Value{
		"pi":    value.Float(math.Pi),
		"e":     value.Float(math.E),
		"tau":   value.Float(2 * math.Pi),
		"inf":   value.Float(math.Inf(1)),
		"nan":   value.Float(math.NaN()),
		"sqrt2": value.Float(math.Sqrt2),
	}
	fns := map[string]func(value.Env, value.Args) (value.Value, error){}
	for name, f := range unary {
		fns[name] = floatFn("math."+name, 1, func(x []float64) (float64, error) { return f(x[0]), nil })
	}
	for name, f := range binary {
		fns[name] = floatFn("math."+name, 2, func(x []float64) (float64, error) { return f(x[0], x[1]), nil })
	}
	fns["clamp"] = floatFn("math.clamp", 3, clamp)
	return newNamespace("math", consts, fns)
}

var unary = map[string]func(float64) float64{
	"sqrt":  math.Sqrt,
	"cbrt":  math.Cbrt,
	"sin":   math.Sin,
	"cos":   math.Cos,
	"tan":   math.Tan,
	"asin":  math.Asin,
	"acos":  math.Acos,
	"atan":  math.Atan,
	"ln":    math.Log,
	"log10": log10,
	"log2":  math.Log2,
	"exp":   math.Exp,
	"floor": math.Floor,
	"ceil":  math.Ceil,
	"round": math.Round, // half away from zero
	"trunc": math.Trunc,
	"abs":   math.Abs,
	"sign":  sign,
}

var binary = map[string]func(float64, float64) float64{
	"atan2": math.Atan2,
	"log":   func(x, base float64) float64 { return math.Log(x) / math.Log(base) },
	"pow":   math.Pow,
	"min":   fmin,
	"max":   fmax,
	"hypot": math.Hypot,
}

// floatFn adapts a float function of n arguments. Arguments may be int or
// float; anything else is a type_error, a wrong count an arg_error.
func floatFn(name string, n int, f func([]float64) (float64, error)) func(value.Env, value.Args) (value.Value, error) {
	return func(_ value.Env, a value.Args) (value.Value, error) {
		if err := arity(name, a, n, n); err != nil {
			return nil, err
		}
		var buf [3]float64
		xs := buf[:n]
		for i, v := range a.Pos {
			switch x := v.(type) {
			case value.Int:
				xs[i] = float64(x)
			case value.Float:
				xs[i] = float64(x)
			default:
				return nil, value.Errorf(value.CodeType, "%s expects a number, got %s", name, value.TypeName(v))
			}
		}
		r, err := f(xs)
		if err != nil {
			return nil, err
		}
		return value.Float(r), nil
	}
}

// log10 is exact on powers of ten, which math.Log10 is not always.
func log10(x float64) float64 {
	r := math.Log10(x)
	if k := math.Round(r); k != r && math.Abs(k) < 300 && math.Pow(10, k) == x {
		return k
	}
	return r
}

// sign is the IEEE signum: ±1 by the sign bit (so +0 is 1), NaN for NaN.
func sign(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if math.Signbit(x) {
		return -1
	}
	return 1
}

// fmin and fmax ignore a NaN operand, as IEEE minNum/maxNum do.
func fmin(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

func fmax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// clamp limits x to [lo, hi]; lo > hi is an arg_error.
func clamp(x []float64) (float64, error) {
	v, lo, hi := x[0], x[1], x[2]
	if lo > hi || math.IsNaN(lo) || math.IsNaN(hi) {
		return 0, value.Errorf(value.CodeArg, "math.clamp: lo (%v) must not exceed hi (%v)", lo, hi)
	}
	return math.Max(lo, math.Min(hi, v)), nil
}
