package leash_test

import (
	"testing"

	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

func deriveWith(t *testing.T, src string, env Env) *Plan {
	t.Helper()
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: env.IsBound})
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Derive(prog, env)
}

// FuzzDerive checks that any parsable source derives a consistent plan.
func FuzzDerive(f *testing.F) {
	for _, s := range []string{
		"rm a", "cd x; cat y", "fn f() { f() }; f()", "alias a = a b; a",
		"with cwd: \"/x\" { ls }", "[1].feed(sort)", "p.read", "sh { x }",
		"match 1 { {a} => cat (a), _ => 0 }", "try { rm x } catch e { touch (e) }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: testEnv.IsBound})
		if err != nil {
			return
		}
		p := Derive(prog, testEnv)
		if len(p.Effects) == 0 && p.Reversibility != Reversible || RevRank(p.Reversibility) == 0 {
			t.Fatalf("%q: %d effects, reversibility %q", src, len(p.Effects), p.Reversibility)
		}
		for _, e := range p.Effects {
			if e.Kind == EffectOpaque && RevRank(p.Reversibility) < RevRank(Unknown) {
				t.Fatalf("%q: an opaque effect, reversibility %q", src, p.Reversibility)
			}
		}
		for _, e := range p.Effects {
			if e.Path != "" && !e.Dynamic && e.Path[0] != '/' {
				t.Fatalf("%q: static path %q is not absolute", src, e.Path)
			}
		}
		_ = Fingerprint(p, src)
	})
}
