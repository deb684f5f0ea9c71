package value

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"file_7", "file_69", -1},
		{"file_69", "file_7", 1},
		{"file_7", "file_7", 0},
		{"a", "b", -1},
		{"", "a", -1},
		{"", "", 0},
		{"a1", "a", 1},
		{"x2y", "x10y", -1},
		{"x10y", "x10z", -1},
		{"v1.10", "v1.9", 1},
		{"007", "7", 1}, // equal numbers: more zeros after
		{"7", "007", -1},
		{"01a", "1b", -1}, // the text after decides before the zeros do
		{"a99999999999999999999999", "a100000000000000000000000", -1}, // past int64
		{"file", "file_1", -1},
		{"B", "a", -1}, // byte order outside digits
		{"日本2", "日本10", -1},
	}
	for _, c := range cases {
		if got := NaturalCompare(c.a, c.b); got != c.want {
			t.Errorf("NaturalCompare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := NaturalLess(c.a, c.b); got != (c.want < 0) {
			t.Errorf("NaturalLess(%q, %q) = %v", c.a, c.b, got)
		}
	}
	names := []string{"file_69", "file_7", "file_10", "file_1", "file_007", "file_", "README", "a"}
	sort.Slice(names, func(i, j int) bool { return NaturalLess(names[i], names[j]) })
	if got := strings.Join(names, " "); got != "README a file_ file_1 file_7 file_007 file_10 file_69" {
		t.Errorf("sorted %q", got)
	}
}

// FuzzNaturalCompare: the comparison is a total order that agrees with
// string equality and is antisymmetric and transitive on what it is given.
func FuzzNaturalCompare(f *testing.F) {
	for _, s := range [][3]string{{"file_7", "file_69", "file_007"}, {"a01", "a1", "a001b"}, {"", "0", "00"}, {"9", "10", "x"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := NaturalCompare(a, b), NaturalCompare(b, a)
		if ab != -ba {
			t.Fatalf("not antisymmetric: %q %q: %d %d", a, b, ab, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("equal under the order but not as strings (or the reverse): %q %q", a, b)
		}
		xs := []string{a, b, c}
		slices.SortFunc(xs, NaturalCompare)
		if NaturalCompare(xs[0], xs[1]) > 0 || NaturalCompare(xs[1], xs[2]) > 0 || NaturalCompare(xs[0], xs[2]) > 0 {
			t.Fatalf("not transitive: %q", xs)
		}
	})
}
