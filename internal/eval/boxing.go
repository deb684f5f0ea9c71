package eval

import "github.com/shoalgo/shoal/internal/value"

// Boxing an Int into a value.Value allocates outside the runtime's tiny
// range; loop counters and small results are common enough to keep a
// preboxed table.
const (
	boxMin = -256
	boxMax = 1024
)

var boxedInts = func() (t [boxMax - boxMin]value.Value) {
	for i := range t {
		t[i] = value.Int(i + boxMin)
	}
	return
}()

// boxInt returns i as a value, without allocating for small magnitudes.
func boxInt(i int64) value.Value {
	if i >= boxMin && i < boxMax {
		return boxedInts[i-boxMin]
	}
	return value.Int(i)
}
