package leash_test

import (
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// valueFlagRegistry is the standard registry with one more command, vq,
// that reads every positional argument as a path and declares a value flag
// (--limit) and a plain one (--all).
type valueFlagRegistry struct{ Registry }

func (r valueFlagRegistry) Builtin(name string) (Builtin, bool) {
	if name == "vq" {
		return Builtin{
			Command: func(d *Deriver) { d.PathArgs(host.FSRead, Reversible) },
			Flags:   []FlagSpec{{Long: "limit", Value: true}, {Long: "all"}},
		}, true
	}
	return r.Registry.Builtin(name)
}

// A value flag written `--limit word` takes that word, as evaluation binds
// it (eval's builtinArgs), so the word is not a path the plan reads; any
// other word stays positional.
func TestValueFlagTakesNextWord(t *testing.T) {
	env := testEnv
	env.Registry = valueFlagRegistry{testRegistry}
	for src, want := range map[string]string{
		"vq --limit 3 ./a":       "fs_read:/work/proj/a",
		"vq --limit=3 ./a":       "fs_read:/work/proj/a",
		"vq --limit ./x ./a":     "fs_read:/work/proj/a",
		`vq --limit "3" ./a`:     "fs_read:/work/proj/a",
		"vq --all ./b":           "fs_read:/work/proj/b",
		"vq --limit -- ./c":      "fs_read:/work/proj/c",
		"vq --limit --all ./d":   "fs_read:/work/proj/d",
		"vq ./e --limit":         "fs_read:/work/proj/e",
		"vq -- --limit ./f":      "fs_read:argument? fs_read:/work/proj/f",
		"vq --limit 1 --limit 2": "",
	} {
		prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: env.IsBound})
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		if got := show(Derive(prog, env)); got != want {
			t.Errorf("%s: plan %q, want %q", src, got, want)
		}
	}
}
