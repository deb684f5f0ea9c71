package value_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// The error-code scan: every place in the module's non-test Go files that
// gives a language error its code (a call of a constructor whose first
// parameter is `code`, an `Error{Code: ...}` literal, `e.Code = ...`, a
// comparison `e.Code == ...`) must name a constant of value.Codes, not a
// string literal; and every code the table does not mark reserved must be
// raised somewhere. Read with go/ast alone: a constant is resolved through
// the const declarations of the package that declares it.

const module = "github.com/shoalgo/shoal"

// literalsLeft is how many literal codes each package not yet converted
// may still hold; a package here may only go down (set its count lower
// when you convert sites, and drop it at zero).
var literalsLeft = map[string]int{}

// pkgSrc is one package's parsed non-test files.
type pkgSrc struct {
	dir    string // below the module root: internal/value, cmd/shoal
	files  []*ast.File
	consts map[string]ast.Expr // package-level const: its value expression
	ctors  map[string]bool     // functions and methods whose first parameter is `code`
}

// scanModule parses every package of the module (test files, testdata and
// hidden directories left out).
func scanModule(t *testing.T) (map[string]*pkgSrc, *token.FileSet) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	pkgs := map[string]*pkgSrc{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name, _ = filepath.Rel(root, p) // positions read from the module root
		f, err := parser.ParseFile(fset, filepath.ToSlash(name), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(filepath.Dir(name))
		ps := pkgs[rel]
		if ps == nil {
			ps = &pkgSrc{dir: rel, consts: map[string]ast.Expr{}, ctors: map[string]bool{}}
			pkgs[rel] = ps
		}
		ps.files = append(ps.files, f)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							ps.consts[n.Name] = vs.Values[i]
						}
					}
				}
			case *ast.FuncDecl:
				if ps := d.Type.Params.List; len(ps) > 0 && len(ps[0].Names) > 0 && ps[0].Names[0].Name == "code" {
					if id, ok := ps[0].Type.(*ast.Ident); ok && id.Name == "string" {
						pkgs[rel].ctors[d.Name.Name] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs, fset
}

// imports maps a file's import names to module package dirs (others are
// left out).
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if !strings.HasPrefix(path, module+"/") {
			continue
		}
		dir := strings.TrimPrefix(path, module+"/")
		name := filepath.Base(dir)
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = dir
	}
	return out
}

// codeSite is one place that gives an error its code.
type codeSite struct {
	pos  token.Position
	arg  ast.Expr
	what string // "call", "field", "assign", "compare"
}

// resolve is the string constant e names, in package dir with the file's
// imports: ok is false when e is not a constant of the module.
func resolve(pkgs map[string]*pkgSrc, dir string, imp map[string]string, e ast.Expr, depth int) (val string, kind token.Token, ok bool) {
	if depth > 8 {
		return "", 0, false
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return x.Value, x.Kind, true
		}
		s, err := strconv.Unquote(x.Value)
		return s, token.STRING, err == nil
	case *ast.UnaryExpr:
		// A negative number (an RPC code such as -32602) is not a
		// language error's code.
		if v, k, ok := resolve(pkgs, dir, imp, x.X, depth+1); ok && k != token.STRING {
			return x.Op.String() + v, k, true
		}
	case *ast.Ident:
		if p := pkgs[dir]; p != nil {
			if v, ok := p.consts[x.Name]; ok {
				return resolve(pkgs, dir, importsOfConst(pkgs, dir, x.Name), v, depth+1)
			}
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if d, ok := imp[id.Name]; ok {
				if p := pkgs[d]; p != nil {
					if v, ok := p.consts[x.Sel.Name]; ok {
						return resolve(pkgs, d, importsOfConst(pkgs, d, x.Sel.Name), v, depth+1)
					}
				}
			}
		}
	}
	return "", 0, false
}

// importsOfConst is the imports of the file of dir that declares const
// name.
func importsOfConst(pkgs map[string]*pkgSrc, dir, name string) map[string]string {
	for _, f := range pkgs[dir].files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.Name == name {
						return imports(f)
					}
				}
			}
		}
	}
	return nil
}

// isCtor reports whether call is a call of an error constructor: a
// function or method of the module whose first parameter is `code string`.
func isCtor(pkgs map[string]*pkgSrc, dir string, imp map[string]string, call *ast.CallExpr, methods map[string]bool) bool {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return pkgs[dir].ctors[fn.Name]
	case *ast.SelectorExpr:
		if id, ok := fn.X.(*ast.Ident); ok {
			if d, ok := imp[id.Name]; ok {
				return pkgs[d] != nil && pkgs[d].ctors[fn.Sel.Name]
			}
			if id.Name == "fmt" {
				return false
			}
		}
		return methods[fn.Sel.Name]
	}
	return false
}

// codeSites lists every place of the module that gives a language error its
// code, by package.
func codeSites(pkgs map[string]*pkgSrc, fset *token.FileSet) map[string][]codeSite {
	methods := map[string]bool{} // constructor methods (BuiltinCall.Errorf)
	for _, p := range pkgs {
		for _, f := range p.files {
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && p.ctors[fd.Name.Name] {
					methods[fd.Name.Name] = true
				}
			}
		}
	}
	out := map[string][]codeSite{}
	for dir, p := range pkgs {
		for _, f := range p.files {
			imp := imports(f)
			_, usesValue := imp["value"]
			usesValue = usesValue || dir == "internal/value"
			add := func(n ast.Node, arg ast.Expr, what string) {
				out[dir] = append(out[dir], codeSite{fset.Position(n.Pos()), arg, what})
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if len(x.Args) > 0 && isCtor(pkgs, dir, imp, x, methods) && !formatLiteral(x.Args[0]) {
						add(x, x.Args[0], "call")
					}
				case *ast.CompositeLit:
					if !isErrorType(x.Type) {
						return true
					}
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
								add(kv, kv.Value, "field")
							}
						}
					}
				case *ast.AssignStmt:
					for i, l := range x.Lhs {
						if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" && usesValue && i < len(x.Rhs) {
							add(x, x.Rhs[i], "assign")
						}
					}
				case *ast.BinaryExpr:
					if x.Op != token.EQL && x.Op != token.NEQ || !usesValue {
						return true
					}
					if sel, ok := x.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" {
						add(x, x.Y, "compare")
					}
				}
				return true
			})
		}
	}
	return out
}

// isErrorType reports whether a composite literal's type is an `Error`
// (value.Error, reef.Error, or Error inside its own package).
func isErrorType(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "Error"
	case *ast.SelectorExpr:
		return x.Sel.Name == "Error"
	}
	return false
}

// forwarded reports whether arg is a parameter of the function around
// pos (a constructor passing its code on) or a code read from another
// error (`re.Code`).
func forwarded(f *ast.File, arg ast.Expr, pos token.Pos, imp map[string]string) bool {
	if sel, ok := arg.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" {
		if id, ok := sel.X.(*ast.Ident); !ok || imp[id.Name] == "" {
			return true
		}
	}
	id, ok := arg.(*ast.Ident)
	if !ok {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		switch fn := n.(type) {
		case *ast.FuncDecl:
			ft = fn.Type
		case *ast.FuncLit:
			ft = fn.Type
		default:
			return true
		}
		if n.Pos() > pos || n.End() < pos {
			return false
		}
		for _, fld := range ft.Params.List {
			for _, nm := range fld.Names {
				if nm.Name == id.Name {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// TestErrorCodesAreConstants: no error is given a code as a string literal
// (outside the packages of literalsLeft, which may only go down), and
// every constant code is in value.Codes.
func TestErrorCodesAreConstants(t *testing.T) {
	pkgs, fset := scanModule(t)
	literals := map[string]int{}
	for dir, sites := range codeSites(pkgs, fset) {
		for _, s := range sites {
			f := fileAt(pkgs[dir], fset, s.pos)
			imp := imports(f)
			if lit, ok := s.arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s.what == "compare" && lit.Value == `""` {
					continue // "has no code"
				}
				if _, ok := literalsLeft[dir]; ok {
					literals[dir]++
					if v, _ := strconv.Unquote(lit.Value); !value.IsCode(v) {
						t.Errorf("%s: the code %s is not in value.Codes", s.pos, lit.Value)
					}
					continue
				}
				t.Errorf("%s: the code %s is a string literal: use its constant (value.Code...)", s.pos, lit.Value)
				continue
			}
			val, kind, ok := resolve(pkgs, dir, imp, s.arg, 0)
			switch {
			case ok && kind != token.STRING:
				continue // an RPC code (proto.Code...), not a language error's
			case ok:
				if !value.IsCode(val) {
					t.Errorf("%s: the code %q is not in value.Codes: add it there (name, meaning, raised by)", s.pos, val)
				}
			case s.what == "compare":
				// Compared with a code held elsewhere (a corpus case's).
			case !forwarded(f, s.arg, fset.File(f.Pos()).Pos(s.pos.Offset), imp):
				t.Errorf("%s: the code is not a constant of value.Codes", s.pos)
			}
		}
	}
	for dir, left := range literalsLeft {
		if got := literals[dir]; got > left {
			t.Errorf("%s gives %d error codes as string literals, more than the %d left: use value.Code... constants", dir, got, left)
		} else if got < left {
			t.Errorf("%s gives %d error codes as string literals, fewer than the %d left: lower literalsLeft to %d", dir, got, left, got)
		}
	}
}

// fileAt is the file of p that holds pos.
func fileAt(p *pkgSrc, fset *token.FileSet, pos token.Position) *ast.File {
	for _, f := range p.files {
		if fset.File(f.Pos()).Name() == pos.Filename {
			return f
		}
	}
	return nil
}

// TestErrorCodesAreRaised: every code of value.Codes is raised somewhere in
// the module (a constructor, an Error literal or an assignment names it),
// unless the table marks it reserved, and a reserved code is raised
// nowhere.
func TestErrorCodesAreRaised(t *testing.T) {
	pkgs, fset := scanModule(t)
	raised := map[string][]string{}
	for dir, sites := range codeSites(pkgs, fset) {
		for _, s := range sites {
			if s.what == "compare" {
				continue
			}
			f := fileAt(pkgs[dir], fset, s.pos)
			if val, kind, ok := resolve(pkgs, dir, imports(f), s.arg, 0); ok && kind == token.STRING {
				raised[val] = append(raised[val], s.pos.String())
			}
		}
	}
	var unraised []string
	for _, c := range value.Codes() {
		switch at := raised[c.Name]; {
		case c.Reserved && len(at) > 0:
			t.Errorf("%s is marked reserved but is raised at %s", c.Name, at[0])
		case !c.Reserved && len(at) == 0:
			unraised = append(unraised, c.Name)
		}
	}
	sort.Strings(unraised)
	for _, n := range unraised {
		t.Errorf("%s is in value.Codes but raised nowhere: mark it Reserved or remove it", n)
	}
}

// formatLiteral reports a string literal that cannot be a code (codes are
// snake_case words): the format of another Errorf, such as testing.T's in
// a test helper package, which the name-based match of constructor
// methods also finds.
func formatLiteral(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	v, err := strconv.Unquote(lit.Value)
	if err != nil {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return true
		}
	}
	return v == ""
}
