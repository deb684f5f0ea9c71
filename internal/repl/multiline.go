package repl

import (
	"errors"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Incomplete reports whether src is a statement the parser wants more of
// (an open bracket, string or block, a trailing operator), as Run decides
// it: a line editor continues its buffer on Enter while this holds, so a
// multi-line entry is edited and kept whole. Past MaxPending it no longer
// holds, and the loop reports the parse error.
func Incomplete(src string, isBound func(string) bool) bool {
	if len(src) >= MaxPending {
		return false
	}
	_, err := syntax.Parse(src, syntax.ParseOptions{IsBound: isBound, REPL: true})
	var perr *syntax.Error
	return errors.As(err, &perr) && perr.Incomplete
}
