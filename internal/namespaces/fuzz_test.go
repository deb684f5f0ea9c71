package namespaces

import (
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/shoalgo/shoal/internal/value"
)

// FuzzParse feeds arbitrary text to every parse function: none may panic,
// every failure must be an arg_error (or too_deep / too_large past a
// bound), and whatever parses must survive a
// stringify/parse round trip unchanged (csv and toml excepted where the
// format cannot hold the value).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"a": [1, 2.5, "x", null, true]}`, "a: 1\nb: [x, y]\n", "a = 1\n[t]\nb = \"x\"\n",
		"a,b\n1,2\n", `"x,y",2`, "- &a 1\n- *a\n", "[[x]]\ny = 1\n", "", "\xff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, ns := range []string{"json", "yaml", "toml", "csv"} {
			v, err := call(t, ns, "parse", pos(s(text)))
			if err != nil {
				if ve, ok := err.(*value.Error); !ok || ve.Code != "arg_error" && ve.Code != value.CodeTooDeep && ve.Code != value.CodeTooLarge {
					t.Fatalf("%s.parse(%q): %v, want an arg_error, too_deep or too_large", ns, text, err)
				}
				continue
			}
			if ns == "csv" || ns == "toml" {
				continue
			}
			out, err := call(t, ns, "stringify", pos(v))
			if err != nil {
				t.Fatalf("%s.stringify(%s): %v", ns, value.Inline(v), err)
			}
			back, err := call(t, ns, "parse", pos(out))
			if err != nil {
				t.Fatalf("%s.parse(stringify(%s)) = %v from %q", ns, value.Inline(v), err, out)
			}
			if value.Inline(back) != value.Inline(v) {
				t.Fatalf("%s round trip of %q: %s became %s", ns, text, value.Inline(v), value.Inline(back))
			}
		}
	})
}

// FuzzTOMLNesting checks the TOML pre-scan against the decoder: whatever
// the scan lets through decodes no deeper than the scan estimated, so the
// scan is a true bound on the decoder's recursion.
func FuzzTOMLNesting(f *testing.F) {
	for _, seed := range []string{
		"a = 1", "a.b.c = 1", "[t]\nx = [1, [2]]", "[a.b]\nc.d = {e = [1]}", "[[a]]\nb = 1",
		"[[a.b]]\n[[a.b.c]]\nd.e = [{f = 1}]", "a = [\n  [1],\n  [2, [3]],\n]", `"a.b".c = 1`,
		"a = {b = {c = {d = [[[1]]]}}}", "[x]\n[x.y]\nz.w = 1\n[[x.y.v]]\nq = 'a.b[c'",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		est := tomlNesting(text)
		if est > maxDepth {
			return
		}
		var m map[string]any
		if err := toml.Unmarshal([]byte(text), &m); err != nil {
			return
		}
		if got := decodedDepth(m); got > est {
			t.Fatalf("tomlNesting(%q) = %d, but it decodes %d deep", text, est, got)
		}
	})
}

// decodedDepth is the depth of the deepest node of a decoded TOML tree,
// the root at 0, measured iteratively.
func decodedDepth(root any) int {
	type item struct {
		v     any
		depth int
	}
	deepest := 0
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.depth)
		switch x := it.v.(type) {
		case map[string]any:
			for _, c := range x {
				stack = append(stack, item{c, it.depth + 1})
			}
		case []map[string]any:
			for _, c := range x {
				stack = append(stack, item{c, it.depth + 1})
			}
		case []any:
			for _, c := range x {
				stack = append(stack, item{c, it.depth + 1})
			}
		}
	}
	return deepest
}
