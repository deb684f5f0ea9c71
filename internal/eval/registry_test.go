package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// TestRegistryDeclaresEffects: every registered builtin command and value
// function carries an effect declaration, so plan derivation never reads a
// builtin as effect-free by omission.
func TestRegistryDeclaresEffects(t *testing.T) {
	r := testRegistry
	if len(r.builtins) < 30 || len(r.funcs) < 10 || len(r.methods) < 5 || len(r.namespaces) < 5 {
		t.Fatalf("registry looks empty: %d builtins, %d value functions, %d method kinds, %d namespaces", len(r.builtins), len(r.funcs), len(r.methods), len(r.namespaces))
	}
	for name, b := range r.builtins {
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
	for name, f := range r.funcs {
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
	r := testRegistry
	for _, name := range r.names() {
		lb, ok := r.Builtin(name)
		if !ok {
			t.Errorf("%s is registered but leash does not see it", name)
			continue
		}
		_, isCmd := r.builtins[name]
		_, isFn := r.funcs[name]
		if (lb.Command != nil) != isCmd || (lb.Call != nil) != isFn {
			t.Errorf("%s: leash sees command %v / function %v, registry has %v / %v", name, lb.Command != nil, lb.Call != nil, isCmd, isFn)
		}
	}
	for _, name := range []string{"cargo", "nosuchtool"} {
		if _, ok := r.Builtin(name); ok {
			t.Errorf("%s is not registered but leash knows it", name)
		}
	}
	p := leash.Derive(mustParse(t, "nosuchtool"), leash.Env{Dir: "/w", Registry: r})
	if len(p.Effects) != 2 || p.Effects[1].Kind != "proc_spawn" {
		t.Errorf("nosuchtool plans as %+v, want a PATH lookup and a spawn", p.Effects)
	}
}

// TestSuggestionsComeFromTheRegistry: did-you-mean offers registered names
// (commands and value functions), never a head that is not registered.
func TestSuggestionsComeFromTheRegistry(t *testing.T) {
	names := commandNames(testRegistry, nil)
	joined := "," + strings.Join(names, ",") + ","
	for _, want := range []string{",ls,", ",mkdir,", ",parallel,", ",watch,"} {
		if !strings.Contains(joined, want) {
			t.Errorf("suggestions lack %s", want)
		}
	}
	for _, absent := range []string{",cargo,", ",nosuchtool,"} {
		if strings.Contains(joined, absent) {
			t.Errorf("suggestions offer %s, which is not registered", absent)
		}
	}
	th := &thread{in: &Interp{opts: Options{Registry: testRegistry}}}
	if e := th.notFound("mkdri", nil); !strings.Contains(e.Hint, "mkdir") {
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

// TestRegistryEntriesDeclareEffects: every method and every namespace
// member carries an effect declaration, so a new path method that reads
// files, or a namespace member that asks the host, cannot plan as pure by
// omission; a pure namespace says so as a whole.
func TestRegistryEntriesDeclareEffects(t *testing.T) {
	r := testRegistry
	n := 0
	for k, set := range r.methods {
		for name, m := range set {
			n++
			if m.Effects == nil {
				t.Errorf("method %s.%s has no effect declaration (Method.Effects)", kindName(k), name)
			}
			if m.Name != name || m.Kind != k {
				t.Errorf("method registered as %s.%s is %s.%s", kindName(k), name, kindName(m.Kind), m.Name)
			}
		}
	}
	if n < 25 {
		t.Errorf("only %d methods in the registry", n)
	}
	for name, ns := range r.namespaces {
		if ns.Pure {
			if len(ns.Members) > 0 {
				t.Errorf("pure namespace %s lists members with effects", name)
			}
			continue
		}
		if len(ns.Members) == 0 {
			t.Errorf("namespace %s is neither pure nor has member entries", name)
		}
		for _, m := range ns.Members {
			if m.Effects == nil {
				t.Errorf("member %s.%s has no effect declaration (Member.Effects)", name, m.Name)
			}
			if m.Value == nil {
				t.Errorf("member %s.%s has no value", name, m.Name)
			}
		}
	}
	for _, want := range []string{"json", "math", "config"} {
		if !r.Namespace(want) {
			t.Errorf("namespace %s missing", want)
		}
	}
}

// TestRegistryMissingEffectsIsOpaque: an entry without a declaration is
// not read as "no effects": it derives as opaque.
func TestRegistryMissingEffectsIsOpaque(t *testing.T) {
	p := &Part{}
	p.Method(&Method{Kind: value.KPath, Name: "shred", Call: func(*MethodCall, value.Value, value.Args) (value.Value, error) { return value.Nil, nil }})
	p.Namespace(&Namespace{Name: "net2", Members: []*Member{{Name: "dial", Value: value.Nil}}})
	r, err := NewRegistry(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`path("x").shred()`, `net2.dial("h")`} {
		pl := leash.Derive(mustParse(t, src), leash.Env{Dir: "/w", Registry: r})
		if !pl.Opaque {
			t.Errorf("%s plans as %+v, not opaque", src, pl.Effects)
		}
	}
}

// TestNewRegistryRefusesDuplicates: a name two parts define is an error,
// for every kind of entry.
func TestNewRegistryRefusesDuplicates(t *testing.T) {
	mk := func() *Part {
		p := &Part{}
		p.Builtin(&Builtin{Name: "b", Effects: EffNone})
		p.Func(&Func{Name: "f", Effects: EffNone})
		p.Method(&Method{Kind: value.KStr, Name: "m", Effects: EffNone})
		p.Namespace(&Namespace{Name: "n", Pure: true})
		return p
	}
	if _, err := NewRegistry(mk()); err != nil {
		t.Fatalf("one part: %v", err)
	}
	_, err := NewRegistry(mk(), mk())
	if err == nil {
		t.Fatal("two parts defining the same names: no error")
	}
	for _, want := range []string{"builtin b", "function f", "method str.m", "namespace n"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	// A method of the same name on another kind is not a duplicate.
	other := &Part{}
	other.Method(&Method{Kind: value.KList, Name: "m", Effects: EffNone})
	if _, err := NewRegistry(mk(), other); err != nil {
		t.Errorf("str.m and list.m: %v", err)
	}
	dupMember := &Part{}
	dupMember.Namespace(&Namespace{Name: "x", Members: []*Member{{Name: "a", Value: value.Nil, Effects: EffNone}, {Name: "a", Value: value.Nil, Effects: EffNone}}})
	if _, err := NewRegistry(dupMember); err == nil || !strings.Contains(err.Error(), "member x.a") {
		t.Errorf("a member defined twice: %v", err)
	}
	if _, err := New(Options{Host: newFakeHost(), Dir: "/w"}); err == nil {
		t.Error("New without a Registry: no error")
	}
}

// TestUntypedMethodsPlanAsBefore: on a receiver whose type derivation
// cannot tell, the reading path methods no other kind has read (when
// called), the clock methods read the clock, and the names several kinds
// share (lines, size) do not count: what leash's name tables said before
// the registry held these facts.
func TestUntypedMethodsPlanAsBefore(t *testing.T) {
	r := testRegistry
	env := leash.Env{Dir: "/w", Registry: r}
	reads := map[string]bool{"read": true, "read_bytes": true, "exists": true, "is_file": true, "is_dir": true, "modified": true}
	for _, name := range r.MethodNames(value.KPath) {
		p := leash.Derive(mustParse(t, "x."+name+"()"), env)
		got := len(p.Effects) == 1 && p.Effects[0].Kind == "fs_read"
		if got != reads[name] {
			t.Errorf("x.%s() plans as %+v; reads = %v, want %v", name, p.Effects, got, reads[name])
		}
		if fp := leash.Derive(mustParse(t, "x."+name), env); len(fp.Effects) != 0 {
			t.Errorf("x.%s (a field) plans as %+v", name, fp.Effects)
		}
	}
	for _, src := range []string{"x.ago()", "x.from_now()", "(1h + 2m).ago()"} {
		p := leash.Derive(mustParse(t, src), env)
		if len(p.Effects) != 1 || p.Effects[0].Kind != "time" {
			t.Errorf("%s plans as %+v, want the clock", src, p.Effects)
		}
	}
}

// TestHelpAnswersEveryEntry: `help NAME` answers for every entry of the
// registry: builtins, functions, methods (by name), namespaces and their
// members (`os.hostname`).
func TestHelpAnswersEveryEntry(t *testing.T) {
	r := testRegistry
	var names []string
	names = append(names, r.names()...)
	for _, set := range r.methods {
		for name := range set {
			names = append(names, name)
		}
	}
	for _, ns := range r.namespaces {
		if !ns.Pure {
			names = append(names, ns.Name)
		}
		for _, m := range ns.Members {
			names = append(names, ns.Name+"."+m.Name)
		}
	}
	for _, name := range names {
		if _, ok := r.helpFor(name); !ok {
			t.Errorf("help %s: no answer", name)
		}
	}
	s := newSession(t)
	for src, want := range map[string]string{
		"help read":   "works on: path",
		"help exists": "whether something exists",
		"help save":   "works on: every type",
		"help path":   ".read ",
	} {
		v, err := s.in.Eval(t.Context(), src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if txt, ok := v.(value.Str); !ok || !strings.Contains(string(txt), want) {
			t.Errorf("%s = %v, want it to contain %q", src, v, want)
		}
	}
}

// TestNoInit: the evaluator builds nothing at package initialisation; the
// registry is a value its embedder builds (stdlib.Registry) and passes in.
func TestNoInit(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: an init function", fset.Position(fd.Pos()))
			}
		}
	}
}
