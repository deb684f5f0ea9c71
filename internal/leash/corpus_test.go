package leash_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/shoalgo/shoal/internal/corpusdir"
	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// TestCorpusDerives derives a plan for every parsable corpus case: no
// panic, a valid reversibility, and an opaque plan always has a dynamic
// effect.
func TestCorpusDerives(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusdir.ForTest(t), "*.toml"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Case []struct {
				Name string `toml:"name"`
				Src  string `toml:"src"`
			} `toml:"case"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, c := range doc.Case {
			prog, err := syntax.Parse(c.Src, syntax.ParseOptions{})
			if err != nil {
				continue
			}
			p := Derive(prog, Env{Dir: "/tmp/case", Home: "/home/u", Registry: testRegistry})
			n++
			if RevRank(p.Reversibility) == 0 {
				t.Errorf("%s: reversibility %q", c.Name, p.Reversibility)
			}
			if len(p.Effects) == 0 && p.Reversibility != Reversible {
				t.Errorf("%s: no effects but reversibility %q", c.Name, p.Reversibility)
			}
			for _, e := range p.Effects {
				if e.Kind == EffectOpaque && RevRank(p.Reversibility) < RevRank(Unknown) {
					t.Errorf("%s: an opaque effect but reversibility %q", c.Name, p.Reversibility)
				}
			}
			dyn := false
			for _, e := range p.Effects {
				dyn = dyn || e.Dynamic
			}
			if dyn != p.Opaque {
				t.Errorf("%s: opaque %v but dynamic effect %v", c.Name, p.Opaque, dyn)
			}
		}
	}
	if n == 0 {
		t.Error("no corpus case parsed")
	}
	t.Logf("derived %d corpus plans", n)
}
