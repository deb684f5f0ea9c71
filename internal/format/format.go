// Package format lays Shoal source out in one canonical way: every line
// indented by two spaces per open bracket (one more for a line that
// continues the statement above), no trailing spaces, no run of blank
// lines, none at the start or end of the file or just inside a bracket, a
// line break at the end; within a line, the gaps between tokens made
// canonical (spacing.go: one space around binary operators and `=>`, after
// commas and colons, none inside brackets and records, one inside a block's
// braces, one before a comment). Kept as written: string contents and
// interpreter bodies (`sh { … }`) byte for byte, comment text, and the
// spacing between command words, where a space is meaning. Source checks
// every result: the output must parse to the same tree (modulo spans) with
// the same comments in the same order and places, or it is refused. The
// language server formats with the same function.
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
	out := layout(text, prog, true)
	if err := check(prog, out); err != nil {
		// The spacing rules are a reading of the grammar; should one ever
		// misread a line, the source keeps its own spacing rather than
		// being refused (TestCorpus and FuzzFormat require it never does).
		out = layout(text, prog, false)
		if err := check(prog, out); err != nil {
			return nil, err
		}
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
