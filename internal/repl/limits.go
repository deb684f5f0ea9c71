package repl

// Bounds of the REPL's display of tall values (display.go).
const (
	// MinTallHeight is the least terminal height at which TallHead and
	// TallPager apply; on a shorter terminal (or an unknown one) values
	// print whole.
	MinTallHeight = 6
	// MaxPagedBytes bounds the text handed to the pager for one value
	// (it is written to a temporary file first); a display past it ends
	// with the count line of what was left out.
	MaxPagedBytes = 32 << 20
)
