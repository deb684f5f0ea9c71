package kernel

import "testing"

// TestExecExit: an `exit N` in an exec's source is reported to its
// client as `exit`, once; the session goes on, bindings kept.
func TestExecExit(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	var res execResult
	c.ok("exec", map[string]any{"src": "let kept = 2; exit 5; kept = 3"}, &res)
	if res.Exit == nil || *res.Exit != 5 {
		t.Fatalf("exit 5 answered %+v", res)
	}
	res = execResult{}
	c.ok("exec", map[string]any{"src": "kept + 1"}, &res)
	if res.Exit != nil || res.Render != "3" {
		t.Fatalf("the exec after exit answered %+v, want 3 and no exit", res)
	}
	res = execResult{}
	c.ok("exec", map[string]any{"src": "if true { exit }"}, &res)
	if res.Exit == nil || *res.Exit != 0 {
		t.Fatalf("a bare exit answered %+v, want exit 0", res)
	}
}
