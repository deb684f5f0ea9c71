package format

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// check is the safety net: out must parse to before's tree, modulo spans,
// with the same comments (text without trailing blanks, place) in order.
func check(before *syntax.Program, out string) error {
	after, err := syntax.Parse(out, parseOptions)
	if err != nil {
		return &UnsafeError{Reason: "the output does not parse: " + err.Error()}
	}
	if !SameTree(before, after) {
		return &UnsafeError{Reason: "the output parses to a different tree"}
	}
	if len(before.Comments) != len(after.Comments) {
		return &UnsafeError{Reason: "the output has a different number of comments"}
	}
	for i, b := range before.Comments {
		a := after.Comments[i]
		if commentText(b) != commentText(a) || b.Place != a.Place {
			return &UnsafeError{Reason: "comment " + b.Text + " would change or move"}
		}
	}
	return nil
}

// commentText is a comment's text as the layout keeps it.
func commentText(c syntax.Comment) string { return strings.TrimRight(c.Text, " \t") }
