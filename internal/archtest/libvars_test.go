package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraryHasNoPackageVars: the standard-library packages
// (internal/lib/...) hold no package-level variables: what a command
// keeps is session state (eval's Context) or registry state (its Part),
// so two sessions, or two registries, never share it.
func TestLibraryHasNoPackageVars(t *testing.T) {
	files, err := filepath.Glob("../lib/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no library package found under internal/lib")
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
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				t.Errorf("%s: a package-level var", fset.Position(gd.Pos()))
			}
		}
	}
}
