package value

import "math"

// Numeric methods on int and float. Rounding an int is the identity; a
// float rounds at an optional number of decimal places and stays a float.

func registerNumMethods() {
	for _, k := range []Kind{KInt, KFloat} {
		addMethod(k, "abs", numAbs)
		addMethod(k, "round", numRound("round", mRoundHalfAway))
		addMethod(k, "floor", numRound("floor", math.Floor))
		addMethod(k, "ceil", numRound("ceil", math.Ceil))
	}
}

func numAbs(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("abs", a); err != nil {
		return nil, err
	}
	switch x := recv.(type) {
	case Int:
		if x == math.MinInt64 {
			return nil, Errorf(CodeOverflow, "int overflow in abs(%d)", int64(x))
		}
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case Float:
		return Float(math.Abs(float64(x))), nil
	}
	return nil, mTypeErr("abs expects a number, got %s", TypeName(recv))
}

// mRoundHalfAway rounds half away from zero.
func mRoundHalfAway(f float64) float64 { return math.Round(f) }

// numRound builds round, floor and ceil with an optional non-negative
// decimal-places argument.
func numRound(name string, op func(float64) float64) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mArity(name, a, 0, 1, ""); err != nil {
			return nil, err
		}
		places := 0
		if len(a.Pos) == 1 {
			var err error
			if places, err = mCount(name+" decimal places", a.Pos[0]); err != nil {
				return nil, err
			}
		}
		switch x := recv.(type) {
		case Int:
			return x, nil
		case Float:
			return Float(mRoundAt(float64(x), places, op)), nil
		}
		return nil, mTypeErr("%s expects a number, got %s", name, TypeName(recv))
	}
}

// mRoundAt applies op at the given decimal places. When scaling would lose
// meaning (the scaled value is infinite or already integral) the value is
// returned unchanged.
func mRoundAt(f float64, places int, op func(float64) float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	if places == 0 {
		return op(f)
	}
	scale := math.Pow(10, float64(places))
	scaled := f * scale
	if math.IsInf(scale, 0) || math.IsInf(scaled, 0) || math.Abs(scaled) >= 1<<52 {
		return f
	}
	r := op(scaled) / scale
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return f
	}
	return r
}
