package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// planOf is the effects of src's plan in c's session, as one string.
func planOf(c *client, src string) string {
	c.t.Helper()
	var a struct {
		Effects []json.RawMessage `json:"effects"`
	}
	c.ok("exec", map[string]any{"src": src, "mode": "plan"}, &a)
	var b strings.Builder
	for _, e := range a.Effects {
		b.Write(e)
	}
	return b.String()
}

// The plan environment is kept across execs (leashenv.go); every change a
// plan can see must still reach it: a function bound, the same name bound
// to another function, a directory entered.
func TestPlanEnvFollowsTheSession(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	dir := t.TempDir()
	c.ok("exec", map[string]any{"src": "1 + 1"}, nil)
	before := planOf(c, "wipe()")
	c.ok("exec", map[string]any{"src": `fn wipe() { rm --permanent ` + dir + `/victim }`}, nil)
	c.ok("exec", map[string]any{"src": "1 + 1"}, nil)
	deletes := planOf(c, "wipe()")
	if !strings.Contains(deletes, dir+"/victim") || strings.Contains(before, dir) {
		t.Fatalf("plan of wipe() before %s, after binding it %s", before, deletes)
	}
	c.ok("exec", map[string]any{"src": `fn wipe() { echo hi }`}, nil)
	if p := planOf(c, "wipe()"); strings.Contains(p, "victim") {
		t.Fatalf("plan of the redefined wipe() still deletes: %s", p)
	}
	c.ok("exec", map[string]any{"src": "cd " + dir}, nil)
	if p := planOf(c, "rm --permanent here"); !strings.Contains(p, dir+"/here") {
		t.Fatalf("plan after cd %s: %s", dir, p)
	}
	c.ok("exec", map[string]any{"src": "let x = 1"}, nil)
	c.ok("exec", map[string]any{"src": `let x = "s"`}, nil)
	if p := planOf(c, "rm --permanent here"); !strings.Contains(p, dir+"/here") {
		t.Fatalf("plan after rebinding x: %s", p)
	}
}

func TestSameBindings(t *testing.T) {
	f, g := &eval.Closure{Name: "f"}, &eval.Closure{Name: "f"}
	rec := value.NewRecord(nil, nil)
	one, two := value.Int(1), value.Int(2)
	for _, tc := range []struct {
		a, b []eval.Binding
		same bool
	}{
		{nil, nil, true},
		{nil, []eval.Binding{{Name: "x", Value: one}}, false},
		{[]eval.Binding{{Name: "x", Value: one}}, []eval.Binding{{Name: "x", Value: two}}, true},
		{[]eval.Binding{{Name: "x", Value: one}}, []eval.Binding{{Name: "y", Value: one}}, false},
		{[]eval.Binding{{Name: "x", Value: one}}, []eval.Binding{{Name: "x", Value: value.Str("1")}}, false},
		{[]eval.Binding{{Name: "x", Value: one}}, []eval.Binding{{Name: "x"}}, false},
		{[]eval.Binding{{Name: "f", Value: f, Callable: true}}, []eval.Binding{{Name: "f", Value: f, Callable: true}}, true},
		{[]eval.Binding{{Name: "f", Value: f, Callable: true}}, []eval.Binding{{Name: "f", Value: g, Callable: true}}, false},
		{[]eval.Binding{{Name: "r", Value: rec}}, []eval.Binding{{Name: "r", Value: rec}}, false},
		{[]eval.Binding{{Name: "x", Value: one}}, []eval.Binding{{Name: "x", Value: rec}}, false},
	} {
		if got := sameBindings(tc.a, tc.b); got != tc.same {
			t.Errorf("sameBindings(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}
