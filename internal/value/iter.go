package value

// maxRangeIterate bounds how many integers Iterate materialises from a
// range; larger ranges should be walked with RangeBounds instead.
const maxRangeIterate = 1 << 24

// Iterate returns the items a for-loop visits in v: a list's items, a
// table's rows as *Record, or a range's integers. ok is false for any
// other value, and for a range too large to materialise (see RangeBounds).
// The returned slice of a list is shared and must not be modified.
func Iterate(v Value) ([]Value, bool) {
	switch x := v.(type) {
	case *List:
		return x.Items, true
	case *Table:
		return tableRows(x), true
	case Range:
		n := RangeLen(x)
		if n > maxRangeIterate {
			return nil, false
		}
		out := make([]Value, n)
		for i := range out {
			out[i] = Int(x.Lo + int64(i))
		}
		return out, true
	}
	return nil, false
}

// RangeBounds returns the half-open interval [lo, hi) a range covers, for
// callers that walk ranges without materialising them. hi <= lo means
// empty. An inclusive range ending at the largest int reports ok=false.
func RangeBounds(r Range) (lo, hi int64, ok bool) {
	if !r.Inclusive {
		return r.Lo, r.Hi, true
	}
	if r.Hi == 1<<63-1 {
		return r.Lo, r.Hi, false
	}
	return r.Lo, r.Hi + 1, true
}

// RangeLen is the number of integers in r (0 for an empty or reversed
// range), saturating at the largest int64.
func RangeLen(r Range) int64 {
	hi := r.Hi
	if r.Lo > hi || (r.Lo == hi && !r.Inclusive) {
		return 0
	}
	n := uint64(hi) - uint64(r.Lo)
	if r.Inclusive {
		n++
	}
	if n == 0 || n > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(n)
}
