package namespaces

import (
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// FuzzParse feeds arbitrary text to every parse function: none may panic,
// every failure must be an arg_error, and whatever parses must survive a
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
				if ve, ok := err.(*value.Error); !ok || ve.Code != "arg_error" {
					t.Fatalf("%s.parse(%q): %v, want an arg_error", ns, text, err)
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
