package host

import (
	"fmt"
	"testing"
)

// TestLimitErrorsNameTheirLimits: the limit errors, written out as literals
// (no initialiser formats them at start), name the limits in force.
func TestLimitErrorsNameTheirLimits(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{ErrTooManyLive, fmt.Sprintf("more than %d watches and tails running: close streams no longer needed", MaxLive)},
		{ErrWatchTooBig, fmt.Sprintf("watch: more than %d directories", maxWatchedDirs)},
	} {
		if c.err.Error() != c.want {
			t.Errorf("%q; want %q", c.err, c.want)
		}
	}
}
