package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// applyUnifiedDiff applies a unified diff to src (test only: checks the
// hunks say what writeUnifiedDiff means them to).
func applyUnifiedDiff(src, diff string) (string, error) {
	old := splitLines(src)
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	next := 0 // the next line of old not yet copied
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ -") {
			continue
		}
		r := strings.Fields(l)[1][1:]
		start, _, _ := strings.Cut(r, ",")
		n, err := strconv.Atoi(start)
		if err != nil {
			return "", err
		}
		if !strings.Contains(r, ",0") {
			n-- // from 1
		}
		out = append(out, old[next:n]...)
		next = n
		for i+1 < len(lines) && lines[i+1] != "" && strings.ContainsRune(" -+\\", rune(lines[i+1][0])) {
			i++
			l := lines[i]
			switch l[0] {
			case ' ', '-':
				if next >= len(old) || strings.TrimSuffix(old[next], "\n") != strings.TrimSuffix(l[1:], "\n") {
					return "", fmt.Errorf("context mismatch at %d: %q", next, l)
				}
				if l[0] == ' ' {
					out = append(out, old[next])
				}
				next++
			case '+':
				out = append(out, l[1:])
			case '\\':
				if k := len(out) - 1; k >= 0 && lines[i-1][0] == '+' {
					out[k] = strings.TrimSuffix(out[k], "\n")
				}
			}
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, ""), nil
}

func TestUnifiedDiffApplies(t *testing.T) {
	cases := [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"", "x\n"},
		{"x\n", ""},
		{"a\nb", "a\nb\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"},
		{strings.Repeat("same\n", 50) + "x\n", "y\n" + strings.Repeat("same\n", 50)},
	}
	for _, c := range cases {
		var b strings.Builder
		writeUnifiedDiff(&b, "f", c[0], c[1])
		got, err := applyUnifiedDiff(c[0], b.String())
		if err != nil || got != c[1] {
			t.Errorf("%q -> %q:\n%s\napplied: %q %v", c[0], c[1], b.String(), got, err)
		}
	}
	var b strings.Builder
	writeUnifiedDiff(&b, "f", "a\nb\nc\n", "a\nB\nc\n")
	if want := "--- f.orig\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"; b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}

// TestUnifiedDiffFallback: past maxDiffEdits the diff is the whole file
// replaced, still correct.
func TestUnifiedDiffFallback(t *testing.T) {
	var a, c strings.Builder
	for i := range 3 * maxDiffEdits {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&c, "c%d\n", i)
	}
	var b strings.Builder
	writeUnifiedDiff(&b, "f", a.String(), c.String())
	got, err := applyUnifiedDiff(a.String(), b.String())
	if err != nil || got != c.String() {
		t.Fatalf("fallback diff does not apply: %v", err)
	}
}
