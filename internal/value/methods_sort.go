package value

import (
	"cmp"
	"math"
	"slices"
)

// Key-based sorting shared by sort, sort_by, min and max. Keys are extracted
// once per item; the items are then ordered through an index permutation.

// SortPermutation returns the stable ascending order of keys as indexes into
// keys, using the language's ordering (Compare). Homogeneous int-like,
// float and str keys take a fast path that never boxes. Incomparable keys
// give Compare's type_error. keys is not modified.
func SortPermutation(keys []Value) ([]int, error) {
	if len(keys) == 0 {
		return []int{}, nil
	}
	switch mKeyShape(keys) {
	case KInt, KSize, KDuration, KTime:
		return mSortInts(keys), nil
	case KFloat:
		return mSortFloats(keys), nil
	case KStr:
		return mSortStrs(keys), nil
	}
	return mSortGeneral(keys)
}

// mKeyShape returns the common kind of keys when a fast path applies to
// it, or KNull otherwise.
func mKeyShape(keys []Value) Kind {
	k := keys[0].Kind()
	switch k {
	case KInt, KSize, KDuration, KTime, KFloat, KStr:
	default:
		return KNull
	}
	for _, v := range keys {
		if v.Kind() != k {
			return KNull
		}
		if f, ok := v.(Float); ok && math.IsNaN(float64(f)) {
			return KNull // let Compare report the NaN
		}
	}
	return k
}

// mRadixKey is an order-preserving unsigned form of a key with its index.
type mRadixKey struct {
	k uint64
	i int
}

func mInt64(v Value) int64 {
	switch x := v.(type) {
	case Int:
		return int64(x)
	case Size:
		return int64(x)
	case Duration:
		return int64(x)
	case Time:
		return int64(x)
	}
	return 0
}

// mOrderedInt maps int64 order onto uint64 order.
func mOrderedInt(n int64) uint64 { return uint64(n) ^ (1 << 63) }

// mOrderedFloat maps float64 order (no NaN) onto uint64 order, with -0
// and +0 equal.
func mOrderedFloat(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func mSortInts(keys []Value) []int {
	ks := make([]mRadixKey, len(keys))
	for i, v := range keys {
		ks[i] = mRadixKey{mOrderedInt(mInt64(v)), i}
	}
	return mRadixPerm(ks)
}

func mSortFloats(keys []Value) []int {
	ks := make([]mRadixKey, len(keys))
	for i, v := range keys {
		ks[i] = mRadixKey{mOrderedFloat(float64(v.(Float))), i}
	}
	return mRadixPerm(ks)
}

// mRadixPerm sorts ks stably by k and returns the indexes in that order.
// Large inputs use an LSD radix sort (stable by construction, skipping
// bytes on which every key agrees); small ones a comparison sort with an
// index tie-break.
func mRadixPerm(ks []mRadixKey) []int {
	if len(ks) < 512 {
		slices.SortFunc(ks, func(a, b mRadixKey) int {
			if c := cmp.Compare(a.k, b.k); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
	} else {
		ks = mRadixSort(ks)
	}
	out := make([]int, len(ks))
	for j, k := range ks {
		out[j] = k.i
	}
	return out
}

func mRadixSort(ks []mRadixKey) []mRadixKey {
	src, dst := ks, make([]mRadixKey, len(ks))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, k := range src {
			count[byte(k.k>>shift)]++
		}
		if count[byte(src[0].k>>shift)] == len(src) {
			continue // every key has the same byte here
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := byte(k.k >> shift)
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	return src
}

type mStrKey struct {
	k string
	i int
}

func mSortStrs(keys []Value) []int {
	ks := make([]mStrKey, len(keys))
	for i, v := range keys {
		ks[i] = mStrKey{string(v.(Str)), i}
	}
	slices.SortFunc(ks, func(a, b mStrKey) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]int, len(ks))
	for j, k := range ks {
		out[j] = k.i
	}
	return out
}

func mSortGeneral(keys []Value) ([]int, error) {
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i
	}
	var first error
	slices.SortStableFunc(perm, func(a, b int) int {
		if first != nil {
			return 0
		}
		c, err := Compare(keys[a], keys[b])
		if err != nil {
			first = err
			return 0
		}
		return c
	})
	if first != nil {
		return nil, first
	}
	return perm, nil
}

// mExtreme returns the index of the smallest (sign -1) or largest (sign +1)
// item, the first one on ties.
func mExtreme(items []Value, sign int) (int, error) {
	best := 0
	for i := 1; i < len(items); i++ {
		c, err := Compare(items[i], items[best])
		if err != nil {
			return 0, err
		}
		if c*sign > 0 {
			best = i
		}
	}
	return best, nil
}
