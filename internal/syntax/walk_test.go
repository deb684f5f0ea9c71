package syntax

import (
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"reflect"
	"strings"
	"testing"
)

// walkSamples holds one value of every node type ast.go declares. Adding a
// type to ast.go fails TestWalkerCoversEveryNode until it is added here and
// to the walker.
var walkSamples = map[string]Node{
	"Program": &Program{}, "LetStmt": &LetStmt{}, "FnStmt": &FnStmt{}, "FnDecl": &FnDecl{},
	"Param": &Param{}, "TypeExpr": &TypeExpr{}, "AliasStmt": &AliasStmt{}, "UseStmt": &UseStmt{},
	"AssignStmt": &AssignStmt{}, "ReturnStmt": &ReturnStmt{}, "BreakStmt": &BreakStmt{},
	"ContinueStmt": &ContinueStmt{}, "ForStmt": &ForStmt{}, "WhileStmt": &WhileStmt{},
	"ExprStmt": &ExprStmt{}, "NullLit": &NullLit{}, "BoolLit": &BoolLit{}, "IntLit": &IntLit{},
	"FloatLit": &FloatLit{}, "StrLit": &StrLit{}, "StrInterp": &StrInterp{}, "SizeLit": &SizeLit{},
	"DurationLit": &DurationLit{}, "TimeLit": &TimeLit{}, "DateTimeLit": &DateTimeLit{}, "PathLit": &PathLit{},
	"RegexLit": &RegexLit{}, "Var": &Var{}, "Field": &Field{}, "Index": &Index{}, "Arg": &Arg{},
	"MethodCall": &MethodCall{}, "Call": &Call{}, "List": &List{}, "RecordField": &RecordField{},
	"Record": &Record{}, "Block": &Block{}, "Lambda": &Lambda{}, "If": &If{}, "MatchArm": &MatchArm{},
	"Match": &Match{}, "Try": &Try{}, "Catch": &Catch{}, "WithEntry": &WithEntry{}, "With": &With{},
	"Spawn": &Spawn{}, "LangBlock": &LangBlock{}, "Binary": &Binary{}, "Unary": &Unary{},
	"Range": &Range{}, "Cmd": &Cmd{}, "CmdCall": &CmdCall{}, "CmdArg": &CmdArg{},
	"Redirect": &Redirect{}, "EnvPrefix": &EnvPrefix{}, "WildcardPat": &WildcardPat{},
	"BindPat": &BindPat{}, "LitPat": &LitPat{}, "RangePat": &RangePat{}, "TypePat": &TypePat{},
	"RecordPatField": &RecordPatField{}, "RecordPat": &RecordPat{}, "ListPat": &ListPat{},
}

// notNodes are the struct types of ast.go that are not tree nodes.
var notNodes = map[string]bool{"Span": true, "StrPart": true}

// astStructs lists the struct types declared in ast.go.
func astStructs(t *testing.T) []string {
	t.Helper()
	f, err := goparser.ParseFile(gotoken.NewFileSet(), "ast.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != gotoken.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if _, ok := ts.Type.(*ast.StructType); ok {
				out = append(out, ts.Name.Name)
			}
		}
	}
	return out
}

var (
	nodeType    = reflect.TypeOf((*Node)(nil)).Elem()
	exprType    = reflect.TypeOf((*Expr)(nil)).Elem()
	stmtType    = reflect.TypeOf((*Stmt)(nil)).Elem()
	patternType = reflect.TypeOf((*Pattern)(nil)).Elem()
	strPartType = reflect.TypeOf(StrPart{})
)

// fill sets every node-valued field of the struct *n points to (direct,
// in a slice, or in a StrPart) to a fresh node and returns those nodes.
func fill(t *testing.T, n Node) []Node {
	t.Helper()
	v := reflect.ValueOf(n).Elem()
	var set []Node
	child := func(ft reflect.Type) (reflect.Value, bool) {
		switch {
		case ft == exprType:
			x := Expr(&NullLit{})
			return reflect.ValueOf(&x).Elem(), true
		case ft == stmtType:
			x := Stmt(&BreakStmt{})
			return reflect.ValueOf(&x).Elem(), true
		case ft == patternType:
			x := Pattern(&WildcardPat{})
			return reflect.ValueOf(&x).Elem(), true
		case ft == nodeType:
			x := Node(&NullLit{})
			return reflect.ValueOf(&x).Elem(), true
		case ft.Kind() == reflect.Pointer && ft.Implements(nodeType):
			return reflect.New(ft.Elem()), true
		}
		return reflect.Value{}, false
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		ft := f.Type()
		if c, ok := child(ft); ok {
			f.Set(c)
			set = append(set, c.Interface().(Node))
			continue
		}
		if ft.Kind() == reflect.Slice {
			et := ft.Elem()
			if c, ok := child(et); ok {
				s := reflect.MakeSlice(ft, 1, 1)
				s.Index(0).Set(c)
				f.Set(s)
				set = append(set, c.Interface().(Node))
				continue
			}
			if et == strPartType {
				x := &IntLit{}
				f.Set(reflect.ValueOf([]StrPart{{Lit: "a"}, {X: x}}))
				set = append(set, x)
				continue
			}
		}
		if ft == reflect.TypeOf([]Comment(nil)) {
			continue // comments are trivia beside the tree, not children
		}
		switch ft.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map:
			t.Errorf("%s.%s: field of type %s holds something the walker test cannot fill", v.Type().Name(), v.Type().Field(i).Name, ft)
		}
	}
	return set
}

// TestWalkerCoversEveryNode: every struct type of ast.go is a Node the
// walker knows, and with every node-valued field set, Children returns
// exactly those children. A new node kind or field fails here until the
// walker handles it.
func TestWalkerCoversEveryNode(t *testing.T) {
	names := astStructs(t)
	if len(names) < 50 {
		t.Fatalf("found only %d struct types in ast.go", len(names))
	}
	for _, name := range names {
		if notNodes[name] {
			continue
		}
		proto, ok := walkSamples[name]
		if !ok {
			t.Errorf("ast.go declares %s, which the walker test does not know: add it to walkSamples and to AppendChildren", name)
			continue
		}
		sample := reflect.New(reflect.TypeOf(proto).Elem()).Interface().(Node)
		if got := reflect.TypeOf(sample).Elem().Name(); got != name {
			t.Errorf("walkSamples[%s] is a %s", name, got)
			continue
		}
		if kids, ok := Children(sample); !ok || len(kids) != 0 {
			t.Errorf("%s: zero value gives children %v, known %v", name, kids, ok)
		}
		want := fill(t, sample)
		kids, ok := Children(sample)
		if !ok {
			t.Errorf("%s: the walker does not know this node kind", name)
			continue
		}
		if len(kids) != len(want) {
			t.Errorf("%s: %d children, want %d (one per node field)", name, len(kids), len(want))
		}
		for _, w := range want {
			found := false
			for _, k := range kids {
				found = found || k == w
			}
			if !found {
				t.Errorf("%s: the walker skips a child of type %T", name, w)
			}
		}
	}
	for name := range walkSamples {
		if !contains(names, name) {
			t.Errorf("walkSamples has %s, which ast.go does not declare", name)
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestWalkOrderAndPrune: nodes come in source order, and returning false
// skips a subtree.
func TestWalkOrderAndPrune(t *testing.T) {
	prog, err := Parse(`let a = f(1, [2, 3]) + g(4); echo (5) > out; { 6 }`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ints []string
	Walk(prog, func(n Node) bool {
		if i, ok := n.(*IntLit); ok {
			ints = append(ints, string(rune('0'+i.Value)))
		}
		return true
	})
	if got := strings.Join(ints, ""); got != "123456" {
		t.Errorf("int literals visited in order %q, want 123456", got)
	}
	ints = nil
	Walk(prog, func(n Node) bool {
		if i, ok := n.(*IntLit); ok {
			ints = append(ints, string(rune('0'+i.Value)))
		}
		_, isList := n.(*List)
		_, isCmd := n.(*Cmd)
		return !isList && !isCmd
	})
	if got := strings.Join(ints, ""); got != "146" {
		t.Errorf("pruned walk visited %q, want 146", got)
	}
	if !Walk(nil, func(Node) bool { t.Error("visited nil"); return true }) {
		t.Error("Walk(nil) reported an unknown node")
	}
}

// TestWalkDeepTree: a tree as deep as the parser allows is walked without
// recursion (the walk would work for any depth).
func TestWalkDeepTree(t *testing.T) {
	src := strings.Repeat("[", MaxDepth/2-5) + "1" + strings.Repeat("]", MaxDepth/2-5)
	prog, err := Parse(src, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if !Walk(prog, func(Node) bool { n++; return true }) {
		t.Error("walk met an unknown node")
	}
	if n < MaxDepth/2-5 {
		t.Errorf("visited %d nodes, want at least %d", n, MaxDepth/2-5)
	}
	// Built by hand, deeper than any parse: still fine.
	var x Expr = &IntLit{}
	for i := 0; i < 100000; i++ {
		x = &Unary{Op: OpNeg, X: x}
	}
	n = 0
	Walk(&ExprStmt{X: x}, func(Node) bool { n++; return true })
	if n != 100002 {
		t.Errorf("visited %d nodes of the hand-built chain, want 100002", n)
	}
}
