package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestDocTableIsTheLayering: the package table of docs/architecture.md
// ("## Packages today") has a row for every package of the layering table
// above and no other, and each row's imports column names exactly the
// project packages the layering allows it (a "*" rule, free of the check,
// may name any project package). A project package is written by its path
// below the module, `internal/` left off (`eval`, `proto`, `client`).
func TestDocTableIsTheLayering(t *testing.T) {
	rows := docTable(t)
	for name, rules := range allowed {
		got, ok := rows[name]
		if !ok {
			t.Errorf("docs/architecture.md has no row for %s", name)
			continue
		}
		if slices.Contains(rules, "*") {
			for _, dep := range got {
				if _, ok := allowed[dep]; !ok {
					t.Errorf("docs/architecture.md: %s imports %s, which is no package", name, dep)
				}
			}
			continue
		}
		want := slices.Clone(rules)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md: %s imports %v; the layering allows %v", name, got, want)
		}
	}
	for name := range rows {
		if _, ok := allowed[name]; !ok {
			t.Errorf("docs/architecture.md has a row for %s, which the layering table lacks", name)
		}
	}
}

// docTable reads the package table: each row's package and the sorted
// project packages its last column names.
func docTable(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sect, ok := strings.Cut(string(b), "\n## Packages today\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Packages today"`)
	}
	code := regexp.MustCompile("`([^`]+)`")
	project := func(word string) (string, bool) {
		switch {
		case strings.ContainsAny(word, ". "):
			return "", false // a module path (golang.org/x/sys) or prose
		case word == "proto" || word == "client" || strings.HasPrefix(word, "cmd/"):
			return word, true
		case strings.HasPrefix(word, "internal/"):
			return word, true
		}
		if _, ok := allowed["internal/"+word]; ok {
			return "internal/" + word, true
		}
		return "", false
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(sect, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		m := code.FindStringSubmatch(cells[0])
		if m == nil || len(cells) < 3 {
			t.Errorf("cannot read the row %.80q", line)
			continue
		}
		var deps []string
		imports := cells[len(cells)-1]
		if i := strings.Index(imports, "(tests:"); i >= 0 {
			imports = imports[:i] // what its tests import is not the layering's
		}
		for _, w := range code.FindAllStringSubmatch(imports, -1) {
			if dep, ok := project(w[1]); ok && !slices.Contains(deps, dep) {
				deps = append(deps, dep)
			}
		}
		sort.Strings(deps)
		rows[m[1]] = deps
	}
	return rows
}

// TestDocDeriverMethods: every Deriver method docs/architecture.md names
// (its paragraph on declaring a builtin's effects) is a method of
// leash.Deriver, read from internal/leash/deriver.go.
func TestDocDeriverMethods(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../leash/deriver.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "Deriver" {
				methods[fd.Name.Name] = true
			}
		}
	}
	if len(methods) < 10 {
		t.Fatalf("found %d Deriver methods", len(methods))
	}
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, para, ok := strings.Cut(string(b), "A new builtin declares its effects with the `Deriver`")
	if !ok {
		t.Fatal("docs/architecture.md has no paragraph on the Deriver")
	}
	para, _, _ = strings.Cut(para, "`effNone`") // then the Builtin's own fields
	named := 0
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]*)").FindAllStringSubmatch(para, -1) {
		named++
		if !methods[m[1]] {
			t.Errorf("docs/architecture.md names Deriver.%s, which does not exist", m[1])
		}
	}
	if named < 10 {
		t.Errorf("read only %d method names from the paragraph", named)
	}
}
