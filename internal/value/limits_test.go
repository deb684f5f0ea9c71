package value

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

// TestSizeLimits checks that each operation that can grow a value past its
// inputs refuses to build one past MaxStrBytes or MaxItems, with
// too_large, and that the same operation just under the bound works.
// (Big lists are allocated but never touched, so they cost address space,
// not memory.)
func TestSizeLimits(t *testing.T) {
	half := Str(strings.Repeat("x", MaxStrBytes/2+1))
	if _, err := BinaryOp(syntax.OpAdd, half, half); errCode(err) != CodeTooLarge {
		t.Errorf("str + str past the bound: %v", err)
	}
	if _, err := BinaryOp(syntax.OpAdd, Bytes(half), Bytes(half)); errCode(err) != CodeTooLarge {
		t.Errorf("bytes + bytes past the bound: %v", err)
	}
	if v, err := BinaryOp(syntax.OpAdd, half, Str("y")); err != nil || len(v.(Str)) != len(half)+1 {
		t.Errorf("str + str under the bound: %v", err)
	}
	big := NewList(make([]Value, MaxItems/2+1))
	if _, err := BinaryOp(syntax.OpAdd, big, big); errCode(err) != CodeTooLarge {
		t.Errorf("list + list past the bound: %v", err)
	}
	mtRun(t, []mtCase{
		{name: "replace-multiplies", recv: Str(strings.Repeat("a", 1<<20)), method: "replace",
			args: mtArgs("a", strings.Repeat("b", 256)), err: CodeTooLarge},
		{name: "replace-empty-pattern", recv: Str(strings.Repeat("a", 1<<20)), method: "replace",
			args: mtArgs("", strings.Repeat("b", 256)), err: CodeTooLarge},
		{name: "replace-regex-multiplies", recv: Str(strings.Repeat("a", 1<<20)), method: "replace",
			args: []Value{mtRe("a"), Str(strings.Repeat("b", 256))}, err: CodeTooLarge},
		{name: "replace-under", recv: Str("aaa"), method: "replace", args: mtArgs("a", "bb"), want: `"bbbbbb"`},
		{name: "join-past", recv: NewList([]Value{half, half}), method: "join", err: CodeTooLarge},
		{name: "flatten-past", recv: NewList([]Value{big, big}), method: "flatten", err: CodeTooLarge},
		{name: "range-to-list-past", recv: Range{Lo: 0, Hi: MaxItems + 1}, method: "map", args: []Value{mtFn(func(v Value) Value { return v })}, err: CodeTooLarge},
	})
	if err := CheckStrLen(MaxStrBytes); err != nil {
		t.Errorf("CheckStrLen at the bound: %v", err)
	}
	if err := CheckItems(MaxItems); err != nil {
		t.Errorf("CheckItems at the bound: %v", err)
	}
	if err := CheckItems(-1); errCode(err) != CodeTooLarge {
		t.Errorf("CheckItems of an overflowed count: %v", err)
	}
}

// TestRegexReplaceBoundedMatchesStdlib: under the bound, the match-by-match
// replacement equals regexp's ReplaceAllString, empty matches included.
func TestRegexReplaceBoundedMatchesStdlib(t *testing.T) {
	for _, tc := range []struct{ re, s, rep string }{
		{"(a)(b)?", "abaab-tail", "[$2$1]"},
		{"x*", "abc", "-"},
		{"", "héllo", "|"},
		{`(\w+)@(\w+)`, "a@b, c@d", "${2}_at_$1"},
		{"z", "abc", "Z"},
		{"a|", "baaac", "<$0>"},
	} {
		re := mtRe(tc.re).Re
		got, err := mRegexReplaceBounded(re, tc.s, tc.rep)
		if want := re.ReplaceAllString(tc.s, tc.rep); err != nil || string(got.(Str)) != want {
			t.Errorf("%q.replace(re%q, %q) = %v, %v; want %q", tc.s, tc.re, tc.rep, got, err, want)
		}
	}
}

func errCode(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}
