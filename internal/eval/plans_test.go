package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func evalOK(t *testing.T, in *Interp, src string) value.Value {
	t.Helper()
	v, err := in.Eval(context.Background(), src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return v
}

func field(t *testing.T, v value.Value, name string) value.Value {
	t.Helper()
	r, ok := v.(*value.Record)
	if !ok {
		t.Fatalf("%s is a %s, not a record", value.Inline(v), value.TypeName(v))
	}
	f, ok := r.Get(name)
	if !ok {
		t.Fatalf("record %s has no %s", value.Inline(v), name)
	}
	return f
}

// TestPlanDerivesWithoutRunning: plan returns {id, effects, reversible,
// spawns}, touches nothing, and apply then runs the stored program.
func TestPlanDerivesWithoutRunning(t *testing.T) {
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{"old.log": "x"})
	p := evalOK(t, in, "plan { touch marker; git status }")
	if got := value.Inline(field(t, p, "id")); got != "1" {
		t.Errorf("first plan id = %s, want 1", got)
	}
	effects := value.Inline(field(t, p, "effects"))
	for _, want := range []string{"fs_write " + filepath.Join(dir, "marker"), "proc_spawn git status", "env_read PATH"} {
		if !strings.Contains(effects, want) {
			t.Errorf("effects %s lack %q", effects, want)
		}
	}
	if field(t, p, "reversible") != value.Bool(false) || field(t, p, "spawns") != value.Bool(true) {
		t.Errorf("plan %s: want reversible false, spawns true", value.Inline(p))
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("plan ran the program: marker exists")
	}

	p = evalOK(t, in, "let p = (plan rm --permanent old.log)\np")
	if got := value.Inline(field(t, p, "id")); got != "2" {
		t.Errorf("second plan id = %s, want 2", got)
	}
	if e := value.Inline(field(t, p, "effects")); !strings.Contains(e, "fs_delete "+filepath.Join(dir, "old.log")) || strings.Contains(e, "trash") {
		t.Errorf("rm --permanent effects = %s", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.log")); err != nil {
		t.Fatalf("plan removed old.log: %v", err)
	}
	evalOK(t, in, "apply p")
	if _, err := os.Stat(filepath.Join(dir, "old.log")); err == nil {
		t.Error("apply p did not run the stored rm")
	}
	// Plan 1 by id and by numeric string; the reversible, spawn-free shape.
	evalOK(t, in, "let q = (plan { touch marker2 })")
	evalOK(t, in, `apply "3"`)
	if _, err := os.Stat(filepath.Join(dir, "marker2")); err != nil {
		t.Errorf("apply \"3\": %v", err)
	}
	r := evalOK(t, in, "plan ls")
	if field(t, r, "reversible") != value.Bool(true) || field(t, r, "spawns") != value.Bool(false) {
		t.Errorf("plan ls = %s, want reversible, no spawns", value.Inline(r))
	}
}

// TestExplainStoresNothing: explain returns {source, effects, reversible,
// spawns} for a source string and takes no plan id.
func TestExplainStoresNothing(t *testing.T) {
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), nil)
	v := evalOK(t, in, "explain 'rm --permanent old.log'")
	if got := field(t, v, "source"); got != value.Str("rm --permanent old.log") {
		t.Errorf("source = %s", value.Inline(got))
	}
	want := `["fs_read ` + filepath.Join(dir, "old.log") + `", "fs_delete ` + filepath.Join(dir, "old.log") + `"]`
	if got := value.Inline(field(t, v, "effects")); got != want {
		t.Errorf("effects = %s, want %s", got, want)
	}
	if _, err := in.Eval(context.Background(), "apply 1"); bfsCode(err) != "not_found" {
		t.Errorf("apply 1 after explain only: %v, want not_found", err)
	}
	// A function declared in the session is followed into its body.
	v = evalOK(t, in, "fn clean() { rm x }\nexplain 'clean'")
	if e := value.Inline(field(t, v, "effects")); !strings.Contains(e, "fs_delete "+filepath.Join(dir, "x")) {
		t.Errorf("explain of a session function: %s", e)
	}
}

func TestPlanErrors(t *testing.T) {
	in, _ := bfsSession(t, host.NewOS(host.AllowAll), nil)
	evalOK(t, in, "plan { 1 }")
	for _, tt := range []struct{ src, code string }{
		{"explain 'let ='", "parse_error"},
		{"explain (1)", "arg_error"},
		{"explain", "arg_error"},
		{"explain 'a' 'b'", "arg_error"},
		{"apply 99", "not_found"},
		{`apply "nope"`, "arg_error"},
		{"apply (1.5)", "arg_error"},
		{"apply ({x: 1})", "arg_error"},
		{"apply (0)", "arg_error"},
		{"apply", "arg_error"},
		{"plan", "arg_error"},
		{"plan (1)", "arg_error"},
		{"plan(1)", "arg_error"},
		{"plan ls { 1 }", "arg_error"},
	} {
		if _, err := in.Eval(context.Background(), tt.src); bfsCode(err) != tt.code {
			t.Errorf("%s: %v, want %s", tt.src, err, tt.code)
		}
	}
}

// TestStoredPlansAreBounded: past MaxStoredPlans the oldest plan is
// dropped; its id answers not_found, the newest still applies.
func TestStoredPlansAreBounded(t *testing.T) {
	in, _ := bfsSession(t, host.NewOS(host.AllowAll), nil)
	for i := 0; i < MaxStoredPlans+3; i++ {
		evalOK(t, in, fmt.Sprintf("plan { %d }", i))
	}
	if n := len(in.plans.progs); n != MaxStoredPlans {
		t.Errorf("%d plans stored, want %d", n, MaxStoredPlans)
	}
	for id := 1; id <= 3; id++ {
		if _, err := in.Eval(context.Background(), fmt.Sprintf("apply %d", id)); bfsCode(err) != "not_found" {
			t.Errorf("apply %d: %v, want not_found", id, err)
		}
	}
	if v := evalOK(t, in, fmt.Sprintf("apply %d", MaxStoredPlans+3)); v != value.Int(MaxStoredPlans+2) {
		t.Errorf("newest plan applied to %s", value.Inline(v))
	}
}

// TestStoredPlanBytesAreBounded: the stored programs span at most
// MaxStoredPlanBytes of source: the oldest are dropped to make room, and a
// program larger than all of it is refused (quota_exceeded) and not kept.
func TestStoredPlanBytesAreBounded(t *testing.T) {
	in, _ := bfsSession(t, host.NewOS(host.AllowAll), nil)
	body := strings.Repeat(`"x"; `, MaxStoredPlanBytes/5/4) // a quarter of the bound
	for i := 0; i < 6; i++ {
		evalOK(t, in, "plan { "+body+" }")
	}
	if in.plans.bytes > MaxStoredPlanBytes || len(in.plans.progs) >= 6 || len(in.plans.progs) == 0 {
		t.Errorf("%d plans spanning %d bytes stored, want fewer than 6 within %d", len(in.plans.progs), in.plans.bytes, MaxStoredPlanBytes)
	}
	if _, err := in.Eval(context.Background(), "apply 1"); bfsCode(err) != "not_found" {
		t.Errorf("apply 1: %v, want not_found (dropped for room)", err)
	}
	evalOK(t, in, "apply 6")
	before := len(in.plans.progs)
	huge := `plan { echo "` + strings.Repeat("x", 10*MaxStoredPlanBytes) + `" }`
	if _, err := in.Eval(context.Background(), huge); bfsCode(err) != "quota_exceeded" || !strings.Contains(err.Error(), BudgetStoredPlans) {
		t.Errorf("a plan ten times the bound: %v, want quota_exceeded naming %s", err, BudgetStoredPlans)
	}
	if len(in.plans.progs) != before {
		t.Errorf("the refused plan changed the store: %d plans, had %d", len(in.plans.progs), before)
	}
}

// TestApplyGoesThroughTheGate: a stored program runs under the session's
// authoriser like any other code.
func TestApplyGoesThroughTheGate(t *testing.T) {
	deny := host.AuthorizerFunc(func(_ context.Context, op host.Op) error {
		if op.Effect == host.FSWrite {
			return host.Denied(op, "no writes")
		}
		return nil
	})
	in, dir := bfsSession(t, host.NewOS(deny), nil)
	evalOK(t, in, "let p = (plan { touch marker })")
	if _, err := in.Eval(context.Background(), "apply p"); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Errorf("apply p under a no-write gate: %v, want a denial", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Error("marker was written through a denying gate")
	}
}
