//go:build linux

package hostile

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
)

// TestHostileStoredPlansBound: a state directory whose journal holds ten
// times journal.MaxPlanRows stored plans (a long-lived or tampered
// journal) restarts under the memory cap: the kernel reads the oldest
// MaxPlanRows of them and no more, the plan past the bound is not read,
// one within it is served, and other clients are served.
func TestHostileStoredPlansBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1.3 million rows")
	}
	out, _, flags := restartSetup(t)

	k1 := Start(t, Options{Flags: flags})
	tok := k1.Token(t, "agent:worker")
	newest := planOf(t, k1.Attach(t, "w", tok), "ls "+out)
	k1.Stop(t)

	// Copies of the stored plan, each older than it, so the plan the
	// kernel made is the newest of 10×MaxPlanRows. The copying is a
	// program of its own, built without the race detector.
	copies := 10*journal.MaxPlanRows - 1
	fill := buildFillJournal(t)
	start := time.Now()
	if b, err := exec.Command(fill, "plans", filepath.Join(k1.StateDir, "journal.db"), newest.PlanRef, strconv.Itoa(copies)).CombinedOutput(); err != nil {
		t.Fatalf("writing the copies: %v\n%s", err, b)
	}
	t.Logf("%d stored plans written in %v", copies+1, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	k2 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
	w := k2.Attach(t, "w", tok)
	oldest := "plan:" + hex32(copies)
	if st, err := getState(t, w, oldest); err != nil || st != "pending" {
		t.Errorf("the oldest stored plan after the restart: %q, %v; want pending", st, err)
	}
	if st, err := getState(t, w, newest.PlanRef); err == nil {
		t.Errorf("the plan past MaxPlanRows was read back (state %q)", st)
	}
	k2.Alive(t)
	other := k2.Owner(t)
	var v any
	if err := other.Call(Ctx(t), "exec", map[string]any{"src": "1 + 1"}, &v); err != nil {
		t.Errorf("the owner's exec beside 1.3 million stored plans: %v", err)
	}
}

// hex32 is i as the 32 hex digits of a plan reference.
func hex32(i int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 32)
	for j := 31; j >= 0; j-- {
		b[j] = digits[i&15]
		i >>= 4
	}
	return string(b)
}
