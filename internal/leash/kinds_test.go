package leash

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

// nodeKinds reads ../syntax/ast.go and returns the types with a method
// named marker (exprNode, stmtNode).
func nodeKinds(t *testing.T, marker string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "syntax", "ast.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != marker {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			out = append(out, star.X.(*ast.Ident).Name)
		}
	}
	return out
}

// switchCases returns the syntax types named in `case *syntax.X` clauses of
// the type switches in method fn of the walker, in file.
func switchCases(t *testing.T, file, fn string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Recv == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, x := range cc.List {
				if star, ok := x.(*ast.StarExpr); ok {
					if sel, ok := star.X.(*ast.SelectorExpr); ok {
						out[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// TestDerivationNamesEveryNodeKind: derivation's dispatch (walker.expr and
// walker.stmt) names every expression and statement kind ast.go declares.
// A kind it does not name would still be recorded as opaque at run time
// (see TestUnknownNodeIsOpaque); this test makes adding one a conscious
// change to derivation.
func TestDerivationNamesEveryNodeKind(t *testing.T) {
	for _, c := range []struct{ marker, file, fn string }{
		{"exprNode", "expr.go", "expr"},
		{"stmtNode", "derive.go", "stmt"},
	} {
		kinds := nodeKinds(t, c.marker)
		if len(kinds) < 10 {
			t.Fatalf("found only %d %s kinds in ast.go", len(kinds), c.marker)
		}
		handled := switchCases(t, c.file, c.fn)
		for _, k := range kinds {
			if !handled[k] {
				t.Errorf("walker.%s (%s) does not name *syntax.%s: derive it, or it is opaque", c.fn, c.file, k)
			}
		}
	}
}

// TestUnknownNodeIsOpaque: a node derivation's dispatch does not know is
// recorded as opaque, and what is inside it still counts.
func TestUnknownNodeIsOpaque(t *testing.T) {
	w := &walker{seen: map[string]bool{}, rev: Reversible, notes: map[string]bool{}, active: map[*syntax.FnDecl]bool{}, expanding: map[string]bool{}}
	w.scopes = []map[string]*local{{}}
	w.unknown(&syntax.Binary{L: &syntax.LangBlock{Tool: "sh"}, R: &syntax.IntLit{}})
	if !w.plan.Opaque {
		t.Error("unknown node did not make the plan opaque")
	}
	spawn := false
	for _, e := range w.plan.Effects {
		spawn = spawn || e.Kind == "proc_spawn"
	}
	if !spawn {
		t.Errorf("effects inside the unknown node were skipped: %+v", w.plan.Effects)
	}
}
