package format

import (
	"fmt"

	"github.com/shoalgo/shoal/internal/syntax"
)

// ParseError is returned for a source that does not parse: nothing can be
// formatted. Err carries the parser's diagnostic (message, span, hint).
type ParseError struct {
	Err *syntax.Error
}

func (e *ParseError) Error() string { return "does not parse: " + e.Err.Error() }

// Unwrap gives the parser's error.
func (e *ParseError) Unwrap() error { return e.Err }

// UnsafeError is the safety net: the formatted text would not mean what
// the source means (another tree, or a comment lost, changed or moved), so
// the formatter refuses and the caller must write nothing.
type UnsafeError struct {
	Reason string
}

func (e *UnsafeError) Error() string {
	return "refusing to format: " + e.Reason + " (this is a formatter bug; please report it with the source)"
}

// TooLargeError is returned for a source over MaxSource bytes.
type TooLargeError struct {
	Size int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("source of %d bytes is over the formatter's limit of %d", e.Size, MaxSource)
}
