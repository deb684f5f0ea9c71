package value

import (
	"math"
	"strings"
)

// Compare orders a and b, returning -1, 0 or +1. Comparable pairs are
// int/float (mixed allowed), str (byte-wise), path, size, duration,
// datetime, time and bool (false < true). Anything else, including NaN,
// is a type_error "cannot compare X with Y".
func Compare(a, b Value) (int, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			return cmpInt(int64(x), int64(y)), nil
		case Float:
			if !math.IsNaN(float64(y)) {
				return cmpIntFloat(int64(x), float64(y)), nil
			}
		}
	case Float:
		if math.IsNaN(float64(x)) {
			break
		}
		switch y := b.(type) {
		case Float:
			if !math.IsNaN(float64(y)) {
				return cmpFloat(float64(x), float64(y)), nil
			}
		case Int:
			return -cmpIntFloat(int64(y), float64(x)), nil
		}
	case Str:
		if y, ok := b.(Str); ok {
			return strings.Compare(string(x), string(y)), nil
		}
	case Path:
		if y, ok := b.(Path); ok {
			return strings.Compare(string(x), string(y)), nil
		}
	case Size:
		if y, ok := b.(Size); ok {
			return cmpInt(int64(x), int64(y)), nil
		}
	case Duration:
		if y, ok := b.(Duration); ok {
			return cmpInt(int64(x), int64(y)), nil
		}
	case Time:
		if y, ok := b.(Time); ok {
			return cmpInt(int64(x), int64(y)), nil
		}
	case DateTime:
		if y, ok := b.(DateTime); ok {
			return x.T.Compare(y.T), nil
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			switch {
			case x == y:
				return 0, nil
			case !bool(x):
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, compareError(a, b)
}

func compareError(a, b Value) *Error {
	an, bn := TypeName(a), TypeName(b)
	if f, ok := a.(Float); ok && math.IsNaN(float64(f)) {
		an = "nan"
	}
	if f, ok := b.(Float); ok && math.IsNaN(float64(f)) {
		bn = "nan"
	}
	return Errorf(CodeType, "cannot compare %s with %s", an, bn)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat compares an int with a non-NaN float exactly, without the
// rounding a float conversion of i would introduce.
func cmpIntFloat(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1 // callers exclude NaN; any non-zero answer keeps Equal false
	case f >= 1<<63:
		return -1
	case f < -(1 << 63):
		return 1
	}
	t := math.Trunc(f)
	if c := cmpInt(i, int64(t)); c != 0 {
		return c
	}
	// Integer parts agree; the fraction decides.
	switch {
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}
