package eval

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/shoalgo/shoal/internal/value"
)

// codeTruncated is raised by `.out` on an outcome whose stdout exceeded the
// host's capture bound.
const codeTruncated = value.CodeOutputTruncated

// truncated remembers, without keeping them alive, the outcomes whose
// stdout lost bytes past the host's capture bound. value.Outcome has no
// field for it, so the mark lives beside it: keyed by a weak pointer and
// dropped by a cleanup once the outcome is collected.
var truncated sync.Map // weak.Pointer[value.Outcome] -> struct{}

// minTruncated is the shortest stdout ever marked (0: none yet). A marked
// stdout is exactly a capture bound long, so anything shorter is skipped
// without a lookup.
var minTruncated atomic.Int64

// markTruncated records that o.Stdout is only a prefix of what was printed.
func markTruncated(o *value.Outcome) {
	n := int64(len(o.Stdout))
	for {
		cur := minTruncated.Load()
		if (cur != 0 && cur <= n) || minTruncated.CompareAndSwap(cur, n) {
			break
		}
	}
	k := weak.Make(o)
	truncated.Store(k, struct{}{})
	runtime.AddCleanup(o, func(k weak.Pointer[value.Outcome]) { truncated.Delete(k) }, k)
}

// isTruncated reports whether o was marked by markTruncated. The common
// case, output shorter than any capture bound seen, costs no lookup.
func isTruncated(o *value.Outcome) bool {
	if m := minTruncated.Load(); m == 0 || int64(len(o.Stdout)) < m || o.Builtin {
		return false
	}
	_, ok := truncated.Load(weak.Make(o))
	return ok
}

// truncatedError explains why a truncated outcome has no payload.
func truncatedError(o *value.Outcome) *value.Error {
	return errorf(codeTruncated, "the output of `%s` was truncated: only its first %d bytes were kept",
		o.Cmd, len(o.Stdout)).
		WithHint("redirect it to a file (cmd > out.txt) to keep all of it; .stdout holds the kept prefix")
}
