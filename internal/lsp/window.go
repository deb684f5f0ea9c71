package lsp

import "slices"

// completionFrom is where completion at off may start reading the text:
// just before the top-level statement holding off or the last one before
// it (on the separator that ends the statement before, so the scan starts
// as it would there), where nothing earlier (an open string, bracket or
// comment) reaches past; 0 when the version did not parse. Completion
// then scans from the cursor's statement, not from the document's start.
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
	return max(0, a.frags[k].span().Start-1)
}
