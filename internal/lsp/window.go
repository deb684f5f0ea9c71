package lsp

import (
	"slices"
	"strings"
)

// completionFrom is where completion at off may start reading the text:
// on the separator just before the top-level statement holding off or the
// last one before it, where the scan starts as it would there; 0 when the
// version did not parse, or when what lies between that statement and the
// one before could open something a span leaves out (a bracket, a quote).
// Completion then scans from the cursor's statement, not from the
// document's start.
func (a *analysis) completionFrom(off int) int {
	if a.prog == nil || len(a.frags) == 0 {
		return 0
	}
	k, found := slices.BinarySearchFunc(a.frags, off, func(f stmtFrag, off int) int { return f.span().Start - off })
	if !found {
		k--
	}
	if k < 0 {
		return 0
	}
	start, prevEnd := a.frags[k].span().Start, 0
	if k > 0 {
		prevEnd = a.frags[k-1].span().End
	}
	if start <= prevEnd || strings.ContainsAny(a.src[prevEnd:start], "([{\"'`") {
		return 0
	}
	return start - 1
}
