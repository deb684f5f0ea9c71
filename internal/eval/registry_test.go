package eval

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// TestRegistryDeclaresEffects: every registered builtin command and value
// function carries an effect declaration, so plan derivation never reads a
// builtin as effect-free by omission.
func TestRegistryDeclaresEffects(t *testing.T) {
	if len(builtinMap()) < 30 || len(funcMap()) < 10 {
		t.Fatalf("registry looks empty: %d builtins, %d value functions", len(builtinMap()), len(funcMap()))
	}
	for name, b := range builtinMap() {
		if b.Effects == nil {
			t.Errorf("builtin %s has no effect declaration (Builtin.Effects)", name)
		}
		if b.Name != name {
			t.Errorf("builtin registered as %s is named %s", name, b.Name)
		}
		for _, f := range b.Flags {
			if f.Long == "" && f.Short == "" {
				t.Errorf("builtin %s declares an empty flag", name)
			}
		}
	}
	for name, f := range funcMap() {
		if f.Effects == nil {
			t.Errorf("value function %s has no effect declaration (Func.Effects)", name)
		}
		if f.Call == nil || f.Name != name {
			t.Errorf("value function %s is malformed", name)
		}
	}
}

// TestRegistryIsLeashsTable: leash sees exactly the names the evaluator
// registers, and nothing else (a name that is not registered, such as
// reef or jump, is an external program and plans as a spawn).
func TestRegistryIsLeashsTable(t *testing.T) {
	for _, name := range registryNames() {
		lb, ok := registryEntry(name)
		if !ok {
			t.Errorf("%s is registered but leash does not see it", name)
			continue
		}
		_, isCmd := builtinMap()[name]
		_, isFn := funcMap()[name]
		if (lb.Command != nil) != isCmd || (lb.Call != nil) != isFn {
			t.Errorf("%s: leash sees command %v / function %v, registry has %v / %v", name, lb.Command != nil, lb.Call != nil, isCmd, isFn)
		}
	}
	for _, name := range []string{"cargo", "nosuchtool"} {
		if _, ok := registryEntry(name); ok {
			t.Errorf("%s is not registered but leash knows it", name)
		}
	}
	p := leash.Derive(mustParse(t, "nosuchtool"), leash.Env{Dir: "/w"})
	if len(p.Effects) != 2 || p.Effects[1].Kind != "proc_spawn" {
		t.Errorf("nosuchtool plans as %+v, want a PATH lookup and a spawn", p.Effects)
	}
	for _, src := range []string{"history", "journal --limit=3"} {
		p := leash.Derive(mustParse(t, src), leash.Env{Dir: "/w"})
		if len(p.Effects) != 1 || p.Effects[0].Kind != EffectJournalRead || p.Opaque {
			t.Errorf("%s plans as %+v (opaque %v), want journal_read alone", src, p.Effects, p.Opaque)
		}
	}
	if p := leash.Derive(mustParse(t, "undo 3"), leash.Env{Dir: "/w"}); !p.Opaque {
		t.Errorf("undo plans as %+v, not opaque", p.Effects)
	}
}

// TestSuggestionsComeFromTheRegistry: did-you-mean offers registered names
// (commands and value functions), never a head that is not registered.
func TestSuggestionsComeFromTheRegistry(t *testing.T) {
	names := commandNames(nil)
	joined := "," + strings.Join(names, ",") + ","
	for _, want := range []string{",ls,", ",mkdir,", ",parallel,", ",watch,"} {
		if !strings.Contains(joined, want) {
			t.Errorf("suggestions lack %s", want)
		}
	}
	for _, want := range []string{",history,", ",journal,", ",undo,"} {
		if !strings.Contains(joined, want) {
			t.Errorf("suggestions lack %s", want)
		}
	}
	for _, absent := range []string{",cargo,", ",nosuchtool,"} {
		if strings.Contains(joined, absent) {
			t.Errorf("suggestions offer %s, which is not registered", absent)
		}
	}
	if e := notFound("mkdri", nil); !strings.Contains(e.Hint, "mkdir") {
		t.Errorf("notFound(mkdri) hint = %q", e.Hint)
	}
}

func mustParse(t *testing.T, src string) *syntax.Program {
	t.Helper()
	p, err := syntax.Parse(src, syntax.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
