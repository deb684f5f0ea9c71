package policy

import (
	"errors"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
)

// FuzzParse feeds arbitrary documents to the strict loader: it must never
// panic, every failure must be a *LoadError, and whatever it accepts must
// be usable: globs recompile to themselves, verdicts and gate answers come
// back for any subject.
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s -fuzzminimizetime 2s ./internal/policy/
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("[principal.\"a\"]\nfs.read = [\"/x/**\"]\n")
	f.Add("[principal.\"a\".fs]\nread = [\"~/a/*/b\", \"/[a-c]?\"]\n")
	f.Add("[principal.\"a\"]\nnet = [\"[::1]:8080\", \"*.x:*\"]\nnet_listen = [1, 65535]\n")
	f.Add("[principal.\"a\"]\nauto_apply = \"never\"\nopaque = \"allow\"\nsys_read = [\"*\"]\n")
	f.Add("[principal]\na = 1\n")
	f.Add("principal = []\n")
	f.Fuzz(func(t *testing.T, doc string) {
		p, err := Parse([]byte(doc), "/home/u")
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T %v is not a *LoadError", err, err)
			}
			return
		}
		pl := &leash.Plan{Reversibility: leash.Irreversible, Effects: []leash.Effect{
			{Kind: host.FSWrite, Path: "/home/u/x"}, {Kind: host.ProcSpawn, Program: "git"},
			{Kind: host.NetConnect, Name: "a.x:443"}, {Kind: leash.EffectOpaque, Dynamic: true},
		}}
		for _, name := range p.Principals() {
			g := p.For(name, false)
			for _, list := range [][]Glob{g.FSRead, g.FSWrite, g.FSDelete} {
				for _, gl := range list {
					again, err := CompileGlob(gl.String())
					if err != nil || again.String() != gl.String() {
						t.Fatalf("glob %q does not recompile: %v", gl, err)
					}
				}
			}
			if d := g.Decide(pl); d.Verdict != Allow && len(d.Reasons) == 0 {
				t.Fatalf("verdict %s without reasons", d.Verdict)
			}
			_ = g.Allows(host.FSRead, "/home/u/a/b")
			_ = g.Narrow([]string{"fs.read"}).Sandbox("/home/u")
		}
	})
}
