package value

import (
	"math"
)

// mValueSet finds structurally equal values quickly: values are bucketed by
// a coarse hash and confirmed with Equal, so the result always agrees with
// the == operator. Values without a cheap hash share one bucket.
type mValueSet struct {
	buckets map[any][]int // hash -> indexes into vals
	vals    []Value
}

func mNewValueSet() *mValueSet { return &mValueSet{buckets: map[any][]int{}} }

// mUnhashed is the bucket key of values that have no cheap hash.
type mUnhashed struct{}

// mHash returns a bucket key such that Equal(a, b) implies
// mHash(a) == mHash(b). Numbers hash by their float64 value so 5 and 5.0
// meet; text-like values hash by their content.
func mHash(v Value) any {
	switch x := v.(type) {
	case Null:
		return x
	case Bool:
		return bool(x)
	case Int:
		return float64(x)
	case Float:
		if math.IsNaN(float64(x)) {
			return mUnhashed{}
		}
		if x == 0 {
			return float64(0) // -0 == 0
		}
		return float64(x)
	case Size:
		return float64(x)
	case Duration:
		return float64(x)
	case Time:
		return float64(x)
	case Str:
		return string(x)
	case Path:
		return string(x)
	case Bytes:
		return string(x)
	case DateTime:
		return x.T.Unix()
	}
	return mUnhashed{}
}

// index returns the index (into the set's insertion order) of a value equal
// to v, or -1.
func (s *mValueSet) index(v Value) int {
	for _, i := range s.buckets[mHash(v)] {
		if Equal(s.vals[i], v) {
			return i
		}
	}
	return -1
}

// add inserts v unless an equal value is present; it returns v's index and
// whether it was added.
func (s *mValueSet) add(v Value) (int, bool) {
	if i := s.index(v); i >= 0 {
		return i, false
	}
	h := mHash(v)
	s.vals = append(s.vals, v)
	s.buckets[h] = append(s.buckets[h], len(s.vals)-1)
	return len(s.vals) - 1, true
}
