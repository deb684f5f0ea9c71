package main

import (
	"fmt"
	"io"
	"strings"
)

// A small unified diff for shoal fmt -d: Myers' algorithm over lines,
// hunks with three lines of context.

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// edit is one line of an edit script: ' ' kept, '-' removed, '+' added.
type edit struct {
	op   byte
	line string // with its line break, if it had one
}

// splitLines splits s into lines that keep their line breaks.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// lineEdits returns an edit script turning a into b: a shortest one when
// it takes at most maxDiffEdits edits, else all of a removed and b added.
func lineEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	maxD := min(n+m, maxDiffEdits)
	v := make([]int, 2*maxD+3)
	off := maxD + 1
	var trace [][]int // v before each round d, for k in [-d-1, d+1]
	for d := 0; d <= maxD; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace)
			}
		}
	}
	var out []edit
	for _, l := range a {
		out = append(out, edit{'-', l})
	}
	for _, l := range b {
		out = append(out, edit{'+', l})
	}
	return out
}

// backtrack walks the saved rounds back from the end to the start.
func backtrack(a, b []string, trace [][]int) []edit {
	var rev []edit
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, edit{' ', a[x-1]})
			x, y = x-1, y-1
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, edit{'+', b[y-1]})
			} else {
				rev = append(rev, edit{'-', a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// writeUnifiedDiff writes the unified diff of before and after, named
// name, or nothing when they are equal.
func writeUnifiedDiff(w io.Writer, name, before, after string) {
	if before == after {
		return
	}
	edits := lineEdits(splitLines(before), splitLines(after))
	fmt.Fprintf(w, "--- %s.orig\n+++ %s\n", name, name)
	// aLine[i], bLine[i]: the line numbers (from 0) edit i starts at.
	aLine, bLine := make([]int, len(edits)+1), make([]int, len(edits)+1)
	for i, e := range edits {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if e.op != '+' {
			aLine[i+1]++
		}
		if e.op != '-' {
			bLine[i+1]++
		}
	}
	for i := 0; i < len(edits); {
		if edits[i].op == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		// Extend over changes closer than twice the context.
		end, kept := i, 0
		for j := i; j < len(edits) && kept <= 2*diffContext; j++ {
			if edits[j].op == ' ' {
				kept++
			} else {
				kept, end = 0, j+1
			}
		}
		end = min(end+diffContext, len(edits))
		aN, bN := aLine[end]-aLine[start], bLine[end]-bLine[start]
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(aLine[start], aN), hunkRange(bLine[start], bN))
		for _, e := range edits[start:end] {
			w.Write([]byte{e.op})
			io.WriteString(w, e.line)
			if !strings.HasSuffix(e.line, "\n") {
				io.WriteString(w, "\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}

// hunkRange is a hunk header's "start,count" (start from 1; the line
// before an empty range).
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
