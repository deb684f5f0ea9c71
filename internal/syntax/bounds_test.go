package syntax

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// treeSize is what the parser tracked of a tree: its height and the nodes
// it built (at least the tree's nodes: speculative parses count too).
type treeSize struct{ height, nodes int }

// kindSize measures a tree from its JSON form, independently of the
// parser's bookkeeping: the depth of nested "kind" objects and their
// number.
func kindSize(prog *Program) (treeSize, error) {
	raw, err := MarshalProgram(prog)
	if err != nil {
		return treeSize{}, err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return treeSize{}, err
	}
	var s treeSize
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["kind"]; ok {
				depth++
				s.nodes++
				s.height = max(s.height, depth)
			}
			for _, c := range x {
				walk(c, depth)
			}
		case []any:
			for _, c := range x {
				walk(c, depth)
			}
		}
	}
	walk(doc, 0)
	return s, nil
}

// checkSize checks the parser's height is the tree's and its node count
// covers the tree's.
func checkSize(prog *Program, tracked treeSize) error {
	real, err := kindSize(prog)
	if err != nil {
		return err
	}
	if tracked.height != real.height {
		return fmt.Errorf("parser tracked height %d, tree is %d deep", tracked.height, real.height)
	}
	if tracked.nodes < real.nodes {
		return fmt.Errorf("parser counted %d nodes, tree has %d", tracked.nodes, real.nodes)
	}
	return nil
}

// TestTrackedSize checks the parser's height and node bookkeeping against
// the trees of the seed corpus, the conformance corpus and a table of
// constructs that nest.
func TestTrackedSize(t *testing.T) {
	srcs := append([]string{benchSource()}, inlineSeeds...)
	if cases, err := loadCorpus(seedCorpusDir()); err == nil {
		for _, c := range cases {
			srcs = append(srcs, c.Src)
		}
	}
	srcs = append(srcs,
		"a.b.c(1)(2)[3]?.d { x }",
		"f(x: [1, {a: -!b}], y => y + 1, .n > 2)",
		"fn g(a: list<list<int>>, b = 1 + 2, ...r) -> int { return a }",
		"match x { [a, ...r] | {k: [1, -2]} if a > 0 => { a }, 1..3 => 2, str s => s, -1.5 => 0 }",
		"with cwd: \"d\", env: {A: 1} { spawn { echo (echo (ls)) } }",
		"let s = \"a{\"b{c}\"}d{[e]}\"", "try { 1 } catch e { e }", "x catch 2",
		"A=1 B=\"{x}\" ^cmd --f=(1 + 2) > \"o{n}\" p(\"x\").y { z } &",
		"alias l = ls -la", "use ./m", "for i in 0..=3 { while i < 2 { break } }",
		"(a: int, b) => a", "if a { b } else if c { d } else { e }",
		"x = 1; x.y += f(); x[0] = 2", "it.x", "CC=\"gcc\"x make", "--x",
		"let r = {a: 1}.a\n  .b", "\"\"\"\n  {a}\n  \"\"\"", "x.f { } .g()",
	)
	for _, src := range srcs {
		for _, repl := range []bool{false, true} {
			prog, perr, size := parseNoRecover(src, ParseOptions{REPL: repl})
			if perr != nil {
				continue
			}
			if err := checkSize(prog, size); err != nil {
				t.Errorf("%v\nsource: %q", err, src)
			}
		}
	}
}

// TestDepthBound checks that every kind of chain or nesting fails at
// MaxDepth with the depth error (or, for bracket nesting, the parser's own
// nesting error) instead of building a deeper tree, and that a tree just
// within the bound parses.
func TestDepthBound(t *testing.T) {
	n := MaxDepth + 10
	tests := []struct {
		name string
		src  string
		msg  string
	}{
		{"binary chain", "1" + strings.Repeat("+1", n), "nested too deeply"},
		{"and chain", "true" + strings.Repeat(" && true", n), "nested too deeply"},
		{"coalesce chain", "1" + strings.Repeat(" ?? 1", n), "nested too deeply"},
		{"field chain", "x" + strings.Repeat(".a", n), "nested too deeply"},
		{"method chain", "x" + strings.Repeat(".a()", n), "nested too deeply"},
		{"call chain", "f" + strings.Repeat("()", n), "nested too deeply"},
		{"index chain", "x" + strings.Repeat("[0]", n), "nested too deeply"},
		{"chain in a command argument", "echo (1" + strings.Repeat("+1", n) + ")", "nested too deeply"},
		{"chain in an interpolation", `"{1` + strings.Repeat("+1", n) + `}"`, "nested too deeply"},
		{"chain as a let value", "let x = 1" + strings.Repeat("+1", n), "nested too deeply"},
		{"unary", strings.Repeat("-", n) + "1", "nesting is too deep"},
		{"else if", "if a { }" + strings.Repeat(" else if a { }", n), "nesting is too deep"},
		{"blocks", strings.Repeat("{ ", n) + strings.Repeat("} ", n), "nesting is too deep"},
		{"commands", strings.Repeat("a (", n) + strings.Repeat(")", n), "nesting is too deep"},
		{"lists", strings.Repeat("[", n) + strings.Repeat("]", n), "nesting is too deep"},
		{"negative pattern", "match x { " + strings.Repeat("-", n) + "1 => 1 }", "nesting is too deep"},
		{"strings in holes", strings.Repeat(`"{`, 40) + strings.Repeat(`}"`, 40), "strings nest too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.src, ParseOptions{})
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *Error", err)
			}
			if !strings.Contains(pe.Msg, tt.msg) || pe.Hint == "" || pe.Incomplete {
				t.Errorf("err = %q (hint %q, incomplete %v), want %q with a hint", pe.Msg, pe.Hint, pe.Incomplete, tt.msg)
			}
		})
	}

	// The deepest allowed tree: an expression statement over a chain of
	// MaxDepth-2 operators (the statement and the innermost literal make up
	// the rest).
	ok := "1" + strings.Repeat("+1", MaxDepth-2)
	prog, perr, size := parseNoRecover(ok, ParseOptions{})
	if perr != nil {
		t.Fatalf("a tree of exactly MaxDepth: %v", perr)
	}
	if size.height != MaxDepth {
		t.Errorf("height %d, want %d", size.height, MaxDepth)
	}
	if err := checkSize(prog, size); err != nil {
		t.Error(err)
	}
	if _, err := Parse(ok+"+1", ParseOptions{}); err == nil {
		t.Errorf("a tree of MaxDepth+1 parsed")
	}
}

// TestNodeBound checks that a source of more than MaxNodes nodes fails
// while parsing with the node error, early in the source.
func TestNodeBound(t *testing.T) {
	src := strings.Repeat("1;", MaxNodes) // two nodes a statement
	_, err := Parse(src, ParseOptions{})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *Error", err)
	}
	if !strings.Contains(pe.Msg, "too large to parse") || pe.Hint == "" {
		t.Errorf("err = %q (hint %q)", pe.Msg, pe.Hint)
	}
	// It fails where the node bound is crossed: about half way through.
	if at := int(pe.Span.Start); at < len(src)/2-4 || at > len(src)/2+4 {
		t.Errorf("failed at byte %d of %d, want about half way", at, len(src))
	}
	// Just under the bound parses.
	if _, err := Parse(strings.Repeat("1;", MaxNodes/2-1), ParseOptions{}); err != nil {
		t.Errorf("%d statements: %v", MaxNodes/2-1, err)
	}
}

// TestManyBindings checks that scoping is the same once the binding stack
// is indexed by name (past bindIndexAt names): an inner command binding
// shadows a value for its block only, and a rebinding in the same scope
// replaces the old one.
func TestManyBindings(t *testing.T) {
	var b strings.Builder
	for i := range 2 * bindIndexAt {
		fmt.Fprintf(&b, "let a%d = 1\n", i)
	}
	b.WriteString("let x = 1\n{ fn x() { }; x -l }\nx -l\nfn y() { }\ny -l\nlet y = 2\ny -l\n")
	prog, err := Parse(b.String(), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(prog.Stmts)
	kinds := func(s Stmt) string {
		if es, ok := s.(*ExprStmt); ok {
			return fmt.Sprintf("%T", es.X)
		}
		return fmt.Sprintf("%T", s)
	}
	blk := prog.Stmts[n-6].(*ExprStmt).X.(*Block)
	got := []string{kinds(blk.Stmts[1]), kinds(prog.Stmts[n-5]), kinds(prog.Stmts[n-3]), kinds(prog.Stmts[n-1])}
	want := []string{"*syntax.Cmd", "*syntax.Binary", "*syntax.Cmd", "*syntax.Binary"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statement kinds %v, want %v", got, want)
	}
}
