package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// TestContextDeclsBound crosses MaxContextDecls tenfold: a statement that
// calls the head of a chain of ten times as many functions, each calling
// the next, is sent to explain with MaxContextDecls of them and no more,
// the chain's first links, each once, in document order.
func TestContextDeclsBound(t *testing.T) {
	n := 10 * MaxContextDecls
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "fn f%d() { f%d() }\n", i, i+1)
	}
	fmt.Fprintf(&b, "fn f%d() { touch /tmp/x }\n", n)
	b.WriteString("f0()\n")
	d := newDocument("file:///w/a.shl", 1, b.String())
	an := d.analysis()
	if an.prog == nil {
		t.Fatal("the document does not parse")
	}
	reg := stdlib.Registry()
	a := newAttachedState(&Server{opts: Options{Registry: reg}}, nil)
	last := an.prog.Stmts[len(an.prog.Stmts)-1].Pos()
	decls := a.declsUsed(d, an.idx, int(last.Start), int(last.End), leash.Env{Registry: reg, Dir: "/w"})
	lines := strings.Split(strings.TrimSuffix(decls, "\n"), "\n")
	if len(lines) != MaxContextDecls {
		t.Fatalf("%d declarations sent with the statement, want MaxContextDecls (%d)", len(lines), MaxContextDecls)
	}
	for i, l := range lines { // the chain from its head, each once
		if want := fmt.Sprintf("fn f%d() { f%d() }", i, i+1); l != want {
			t.Fatalf("declaration %d sent is %q, want %q", i, l, want)
		}
	}
}
