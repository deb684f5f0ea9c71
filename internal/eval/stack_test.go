package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// stackCap is the Go stack one evaluation may use in TestEvalStackBounded:
// the budget's worst construct needs about half of it.
const stackCap = 64 << 20

// deepSources recurse without end, each through a different evaluator
// path, most with a deep expression on every level: with only calls
// counted (10,000 of them) each would need gigabytes of stack.
func deepSources() map[string]string {
	chain := "f(n + 1)" + strings.Repeat(" + 1", syntaxChain)
	return map[string]string{
		"call":            "fn f(n) { f(n + 1) }\nf(0)",
		"chain per call":  "fn f(n) { " + chain + " }\nf(0)",
		"if per call":     "fn f(n) { if n < 0 { 0 } else { " + chain + " } }\nf(0)",
		"method callback": "fn f(n) { [n].map(x => " + chain + ")[0] }\nf(0)",
		"lambda":          "let f = (n) => " + chain + "\nf(0)",
		"interpolation":   "fn f(n) { \"{" + chain + "}\" }\nf(0)",
		"lists":           "fn f(n) { [[[[" + chain + "]]]] }\nf(0)",
		"records":         "fn f(n) { {a: {b: " + chain + "}} }\nf(0)",
		"with":            "fn f(n) { with env: {A: \"1\"} { " + chain + " } }\nf(0)",
		"blocks":          "fn f(n) { {{{{ " + chain + " }}}} }\nf(0)",
		"command args":    "fn f(n) { echo (f x) }\nf x",
	}
}

// syntaxChain is the length of the operator chain on each level: close to
// syntax.MaxDepth, the deepest a single expression can be.
const syntaxChain = syntax.MaxDepth - 20

// TestEvalStackBounded runs every deep source in a child process whose
// goroutine stacks are capped at stackCap: each must end in
// recursion_limit. Without the evaluation-depth budget the child dies of
// a stack overflow, which fails this test rather than the test binary.
func TestEvalStackBounded(t *testing.T) {
	if os.Getenv("SHOAL_EVAL_STACK_CHILD") == "1" {
		evalDeepSources(t)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEvalStackBounded$", "-test.v")
	cmd.Env = append(os.Environ(), "SHOAL_EVAL_STACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, tail(string(out), 3000))
	}
	if !strings.Contains(string(out), "--- PASS: TestEvalStackBounded") {
		t.Fatalf("child did not pass:\n%s", tail(string(out), 3000))
	}
}

func evalDeepSources(t *testing.T) {
	debug.SetMaxStack(stackCap)
	for name, src := range deepSources() {
		s := newSession(t)
		var err error
		done := make(chan struct{})
		go func() { // a fresh goroutine, as the kernel runs each exec
			defer close(done)
			_, err = s.in.Eval(context.Background(), src)
		}()
		<-done
		var e *value.Error
		if !errors.As(err, &e) || e.Code != codeRecursion {
			t.Errorf("%s: err = %v, want recursion_limit", name, err)
			continue
		}
		fmt.Printf("%s: %s\n", name, e.Msg)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
