package kernel

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
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

// TestRevokeCancelsLanguageTasks: revoking a token cancels the language
// tasks its execs started, directly or through a task they started, as it
// cancels its exec tasks; a task started through another token of the
// same principal and session goes on.
func TestRevokeCancelsLanguageTasks(t *testing.T) {
	k := startKernel(t)
	id, tok := k.token(t, "agent:lr", "p")
	_, tok2 := k.token(t, "agent:lr", "p")

	taskID := func(raw json.RawMessage) string {
		var v struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &v); err != nil || !strings.HasPrefix(v.ID, "task:") {
			t.Fatalf("exec value %s is not a kernel task handle", raw)
		}
		return v.ID
	}
	cut := k.dial(t)
	cut.attach("lr", tok)
	var ex execResult
	cut.ok("exec", map[string]any{"src": "var direct = spawn { sleep 60s }\ndirect"}, &ex)
	direct := taskID(ex.Value)
	cut.ok("exec", map[string]any{"src": "var box = {inner: null}\nvar outer = spawn { box.inner = spawn { sleep 60s }; box.inner.await() }\nwhile box.inner == null { sleep 5ms }\nbox.inner"}, &ex)
	nested := taskID(ex.Value)

	keep := k.dial(t)
	keep.attach("lr", tok2)
	keep.ok("exec", map[string]any{"src": "var kept = spawn { sleep 60s }\nkept"}, &ex)
	kept := taskID(ex.Value)

	if err := auth.Open(k.store).Revoke(id); err != nil {
		t.Fatal(err)
	}
	state := func(task string) string {
		var rec struct {
			State string `json:"state"`
		}
		keep.ok("task.get", map[string]any{"task": task}, &rec)
		return rec.State
	}
	for _, task := range []string{direct, nested} {
		eventually(t, 5*time.Second, task+" cancelled after the revocation", func() bool { return state(task) == "cancelled" })
	}
	if st := state(kept); st != "running" {
		t.Errorf("the other token's task is %s, want running", st)
	}
	keep.ok("task.cancel", map[string]any{"task": kept}, nil)
}
