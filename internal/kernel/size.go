package kernel

import "github.com/shoalgo/shoal/internal/value"

// approxSize is the memory v keeps alive, in bytes, for the transcript's
// byte bounds: its true footprint at any depth (value.Footprint walks it
// iteratively and counts a shared part once when it recognises it), so a
// deep value is never undercounted. The work is bounded: the walk stops
// once the count passes limit, and the result is then above limit.
func approxSize(v value.Value, limit int) int {
	n := value.Footprint(v, int64(limit))
	if n > int64(limit) {
		return limit + 1
	}
	return int(n)
}
