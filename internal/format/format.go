// Package format lays Shoal source out in one canonical way: every line
// indented by two spaces per open bracket (one more for a line that
// continues the statement above), no trailing spaces, no run of blank
// lines, none at the start or end of the file or just inside a bracket,
// one space before a comment that follows code, a line break at the end.
// Everything else is kept as written: the words and spacing within a line,
// string contents and interpreter bodies (`sh { … }`) byte for byte, every
// comment. Source checks every result: the output must parse to the same
// tree (modulo spans) with the same comments in the same order and
// places, or it is refused. The language server formats with the same
// function.
package format

import (
	"errors"
	"fmt"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Source formats src. A source that does not parse gives a *ParseError, one
// over MaxSource a *TooLargeError, and a result the safety net rejects an
// *UnsafeError; on any error nothing should be written.
func Source(src []byte) ([]byte, error) {
	if len(src) > MaxSource {
		return nil, &TooLargeError{Size: len(src)}
	}
	text := string(src)
	prog, err := parse(text)
	if err != nil {
		return nil, err
	}
	out := layout(text, prog)
	if err := check(prog, out); err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// parseOptions are the options source is parsed with, before and after.
var parseOptions = syntax.ParseOptions{Comments: true}

// parse parses text keeping its comments.
func parse(text string) (*syntax.Program, error) {
	prog, err := syntax.Parse(text, parseOptions)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, &ParseError{Err: se}
		}
		return nil, fmt.Errorf("format: parse: %w", err)
	}
	return prog, nil
}
