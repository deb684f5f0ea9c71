package leash_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// deepSession is an Env whose session holds MaxCallDepth+10 functions,
// each calling the next from the bottom of an operator chain nearly
// syntax.MaxDepth deep, and as many aliases each naming the next.
func deepSession(t *testing.T) Env {
	t.Helper()
	n := MaxCallDepth + 10
	fns := map[string]*syntax.FnDecl{}
	aliases := map[string]*syntax.CmdCall{}
	for i := range n {
		src := fmt.Sprintf("fn f%d() { (f%d)%s }", i, i+1, strings.Repeat(" + 1", syntax.MaxDepth-10))
		prog, err := syntax.Parse(src, syntax.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fns[fmt.Sprintf("f%d", i)] = prog.Stmts[0].(*syntax.FnStmt).Decl
		prog, err = syntax.Parse(fmt.Sprintf("a%d -x", i+1), syntax.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		aliases[fmt.Sprintf("a%d", i)] = prog.Stmts[0].(*syntax.ExprStmt).X.(*syntax.Cmd).Call
	}
	return Env{
		Registry: testRegistry,
		Dir:      "/work",
		Function: func(name string) (*syntax.FnDecl, bool) { d, ok := fns[name]; return d, ok },
		Alias:    func(name string) (*syntax.CmdCall, bool) { c, ok := aliases[name]; return c, ok },
	}
}

// TestDeriveDepthBounded derives plans that follow long chains of session
// functions (each a deep tree) and of aliases in a child process whose
// goroutine stacks are capped at 8 MiB: derivation must stop following at
// its bounds and mark the plan opaque. Without the bounds the walk needs
// tens of MiB of stack and the child dies, failing this test.
func TestDeriveDepthBounded(t *testing.T) {
	if os.Getenv("SHOAL_LEASH_DEPTH_CHILD") == "1" {
		debug.SetMaxStack(8 << 20)
		env := deepSession(t)
		for _, src := range []string{"f0", "a0"} {
			prog, err := syntax.Parse(src, syntax.ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := Derive(prog, env)
			if !p.Opaque && !strings.Contains(strings.Join(p.Notes, "\n"), "too deeply") {
				t.Errorf("%s: plan is neither opaque nor noted as too deep: %+v", src, p)
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeriveDepthBounded$", "-test.v")
	cmd.Env = append(os.Environ(), "SHOAL_LEASH_DEPTH_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestDeriveDepthBounded") {
		s := string(out)
		if len(s) > 3000 {
			s = "…" + s[len(s)-3000:]
		}
		t.Fatalf("child failed: %v\n%s", err, s)
	}
}
