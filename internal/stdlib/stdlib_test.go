package stdlib

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestRegistry: the standard parts join without a duplicate, and the
// moved library's names are in the one registry beside eval's own.
func TestRegistry(t *testing.T) {
	r, err := eval.NewRegistry(Parts()...)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, n := range r.BuiltinNames() {
		names[n] = true
	}
	for _, n := range []string{"pwd", "ls", "cd", "pushd", "popd", "dirs", "jump", "j"} {
		if !names[n] {
			t.Errorf("the standard registry has no builtin %s", n)
		}
	}
}

// TestRegistryAudit: every entry of the standard registry, eval's and
// each library package's, declares its effects and its help, and `help
// NAME` answers for it (eval.Registry.Audit enumerates them).
func TestRegistryAudit(t *testing.T) {
	for _, p := range Registry().Audit() {
		t.Error(p)
	}
}

// TestHelpForLibraryCommands: `help NAME` and `NAME --help` show a moved
// command's help from its entry, in a session on the standard registry.
func TestHelpForLibraryCommands(t *testing.T) {
	in, err := eval.New(eval.Options{Registry: Registry(), Host: host.NewOS(host.AllowAll), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		"help cd":     "cd — change the working directory",
		"jump --help": "usage: jump [QUERY]",
		"help pushd":  "example:\n  pushd /tmp",
		"help cp":     "cp — copy files",
		"rm --help":   "usage: rm [-r] [-f] [--permanent] PATH...",
		"help watch":  "watch(PATH_OR_GLOB, recursive: BOOL)",
	} {
		v, err := in.Eval(t.Context(), src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if s, ok := v.(value.Str); !ok || !strings.Contains(string(s), want) {
			t.Errorf("%s = %v, want it to contain %q", src, v, want)
		}
	}
}

// TestLibraryHasNoInit: no library package (internal/lib/...) builds
// anything at package initialisation or keeps package variables; its
// entries are a Part its caller asks for, and any state is the part's or
// the session's (issue 25, acceptance 1).
func TestLibraryHasNoInit(t *testing.T) {
	files, err := filepath.Glob("../lib/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no library package found under ../lib")
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
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				t.Errorf("%s: a package variable", fset.Position(gd.Pos()))
			}
		}
	}
}
