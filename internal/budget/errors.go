package budget

import (
	"errors"
	"fmt"
	"strings"
)

// CodeQuotaExceeded is the code of a refused budget: the language error
// code of an *ExceededError raised to a program, and data.code of the
// kernel's RPC error for one.
const CodeQuotaExceeded = "quota_exceeded"

// ErrExceeded is matched (errors.Is) by every *ExceededError.
var ErrExceeded = errors.New("budget exceeded")

// ErrEvicted reports Grow on a Holder that was evicted or released.
var ErrEvicted = errors.New("budget: holder evicted")

// ExceededError is a charge a budget refused: Name is the budget, Limit
// its bound (bytes, or a count for the count bounds), Used what it held
// and Want what was asked, where the refuser knows them. Reason, when set,
// says in words what was refused (for bounds whose figures alone do not).
type ExceededError struct {
	Name              string
	Limit, Used, Want int64
	Reason            string
}

func (e *ExceededError) Error() string {
	switch {
	case e.Reason != "":
		return fmt.Sprintf("%s (%s budget: %d)", e.Reason, e.Name, e.Limit)
	case e.Want <= 0:
		return fmt.Sprintf("the %s budget (%s) is exhausted: %s in use", e.Name, FormatBytes(e.Limit), FormatBytes(e.Used))
	}
	return fmt.Sprintf("the %s budget (%s) is exhausted: %s in use, %s more asked",
		e.Name, FormatBytes(e.Limit), FormatBytes(e.Used), FormatBytes(e.Want))
}

// Is makes errors.Is(err, ErrExceeded) hold.
func (e *ExceededError) Is(target error) bool { return target == ErrExceeded }

// Hint says what a program that ran out of memory budget can do.
const Hint = "keep fewer large values alive (drop variables and transcript values you no longer need), " +
	"work on the data in parts, or stream it through a command"

// closedError is a charge to a closed budget.
type closedError struct{ name string }

func (e *closedError) Error() string { return "the " + e.name + " budget is closed" }

// FormatBytes renders n with a binary unit: 512 B, 64 KiB, 2 GiB, 1.5 GiB.
// A size that one decimal would round to a whole number it is not (8191
// MiB is not "8.0 GiB") is shown in the next smaller unit.
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for i < len(units)-1 && n>>(10*(i+1)) > 0 {
		i++
	}
	for ; i > 0; i-- {
		scale := int64(1) << (10 * i)
		if n%scale == 0 {
			return fmt.Sprintf("%d %s", n/scale, units[i])
		}
		s := fmt.Sprintf("%.1f", float64(n)/float64(scale))
		if !strings.HasSuffix(s, ".0") {
			return s + " " + units[i]
		}
	}
	return fmt.Sprintf("%d B", n)
}
