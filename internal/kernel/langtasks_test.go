package kernel

import (
	"errors"
	"testing"

	membudget "github.com/shoalgo/shoal/internal/budget"
)

// TestLangQuota: the language-task quota admits up to the per-principal
// bound for a token principal and up to the kernel bound in all, counts
// the owner only kernel-wide, names the bound it refuses with, and admits
// again once tasks are released.
func TestLangQuota(t *testing.T) {
	l := DefaultLimits()
	l.LangTasks, l.PrincipalLangTasks = 5, 3
	q := newLangQuota("uid:1", l)
	steps := []struct {
		principal string
		release   bool
		refused   string // budget named, "" for admitted
	}{
		{principal: "agent:a"}, {principal: "agent:a"}, {principal: "agent:a"},
		{principal: "agent:a", refused: BudgetPrincipalLangTasks},
		{principal: "agent:b"},
		{principal: "uid:1"},
		{principal: "uid:1", refused: BudgetLangTasks},
		{principal: "agent:b", refused: BudgetLangTasks},
		{principal: "agent:a", release: true},
		{principal: "agent:b"},
		{principal: "agent:a", refused: BudgetLangTasks},
		{principal: "uid:1", release: true},
		{principal: "uid:1"},
	}
	for i, s := range steps {
		if s.release {
			q.release(s.principal)
			continue
		}
		err := q.charge(s.principal)
		var ex *membudget.ExceededError
		switch {
		case s.refused == "" && err != nil:
			t.Fatalf("step %d (%s): refused %v, want admitted", i, s.principal, err)
		case s.refused != "" && (!errors.As(err, &ex) || ex.Name != s.refused):
			t.Fatalf("step %d (%s): %v, want refusal naming %s", i, s.principal, err, s.refused)
		}
	}
	if n := q.running(); n != 5 {
		t.Errorf("running = %d, want 5", n)
	}
	for _, p := range []string{"agent:a", "agent:a", "agent:b", "agent:b", "uid:1"} {
		q.release(p)
	}
	if n := q.running(); n != 0 || len(q.byPrin) != 0 {
		t.Errorf("after releasing everything: running %d, principals %v", n, q.byPrin)
	}
}
