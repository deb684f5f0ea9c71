//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/leash"
)

// planBytesRSS is the most the kernel may hold resident while deriving,
// storing and answering a plan that would name ten times
// leash.MaxPlanBytes: without the bound, the same source (about 40 MB of
// effects unlisted) took the kernel past 500 MB.
const planBytesRSS = 300 << 20

// TestHostilePlanBytesBound: relative paths are made absolute, so a short
// source run from a deep directory names many times its size. Through the
// binary under a memory cap, the owner asks for the plan of `touch aN`
// statements that name ten times leash.MaxPlanBytes of paths: the plan is
// derived up to the bound, stored (the journal's bound on a stored plan is
// above it), answered opaque with the note naming the bound, readable with
// plan.get; explain says the same; the kernel stays under planBytesRSS;
// the owner's heartbeat is served throughout.
func TestHostilePlanBytesBound(t *testing.T) {
	if leash.MaxPlanBytes+64<<10 > journal.MaxPlanBytes {
		t.Fatalf("leash.MaxPlanBytes %d leaves no room under journal.MaxPlanBytes %d", leash.MaxPlanBytes, journal.MaxPlanBytes)
	}
	k := Start(t, Options{MemCap: 2 << 30})
	deep := k.Dir
	for len(deep) < 3800 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	n := 10*leash.MaxPlanBytes/len(deep) + 1
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "touch a%d\n", i)
	}
	hb := k.Heartbeat(t)
	c := k.Attach(t, "plans", "")
	if err := c.Call(Ctx(t), "exec", map[string]any{"src": "cd '" + deep + "'"}, nil); err != nil {
		t.Fatal(err)
	}

	type plan struct {
		PlanRef string            `json:"plan_ref"`
		State   string            `json:"state"`
		Opaque  bool              `json:"opaque"`
		Effects []json.RawMessage `json:"effects"`
		Notes   []string          `json:"notes"`
	}
	check := func(what string, p plan) {
		t.Helper()
		if !p.Opaque || len(p.Notes) == 0 || !strings.Contains(p.Notes[len(p.Notes)-1], "leash.MaxPlanBytes") {
			t.Errorf("%s: opaque %v, notes %q; want opaque with the bound's note last", what, p.Opaque, p.Notes)
		}
		size := 0
		for _, e := range p.Effects {
			size += len(e) + 1
		}
		if size > leash.MaxPlanBytes {
			t.Errorf("%s lists %d bytes of effects, over %d", what, size, leash.MaxPlanBytes)
		}
		if len(p.Effects) >= 2*n {
			t.Errorf("%s lists %d effects: every one of the %d statements' effects", what, len(p.Effects), n)
		}
	}
	var p plan
	if err := c.Call(Ctx(t), "exec", map[string]any{"src": src.String(), "mode": "plan"}, &p); err != nil {
		t.Fatalf("plan of %d statements: %v", n, err)
	}
	check("the plan", p)
	var got plan
	if err := c.Call(Ctx(t), "plan.get", map[string]any{"plan_ref": p.PlanRef}, &got); err != nil {
		t.Fatalf("plan.get %s: %v", p.PlanRef, err)
	}
	check("plan.get", got)
	var ex plan
	if err := c.Call(Ctx(t), "explain", map[string]any{"src": src.String()}, &ex); err != nil {
		t.Fatalf("explain: %v", err)
	}
	check("explain", ex)
	hb.Stop(t)
	k.Alive(t)
	peak := k.PeakRSS(t)
	t.Logf("%d statements from a %d-byte directory: plan of %d effects, kernel peak RSS %d MiB", n, len(deep), len(p.Effects), peak>>20)
	if peak > planBytesRSS {
		t.Errorf("kernel peaked at %d MiB resident, over %d MiB", peak>>20, planBytesRSS>>20)
	}
}
