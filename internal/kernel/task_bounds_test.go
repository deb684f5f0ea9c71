package kernel

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// wantQuota checks that r is the typed refusal of the bound named budget:
// LEASH_DENIED with data {code: quota_exceeded, budget, limit}.
func wantQuota(t *testing.T, r *rpcResponse, budget string, limit int) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("want a %s refusal, got result %s", budget, r.Result)
	}
	var d struct {
		Code   string `json:"code"`
		Budget string `json:"budget"`
		Limit  int    `json:"limit"`
	}
	if err := json.Unmarshal(r.Error.Data, &d); err != nil {
		t.Fatalf("error data %s: %v", r.Error.Data, err)
	}
	if r.Error.Code != proto.CodeLeashDenied || d.Code != membudget.CodeQuotaExceeded || d.Budget != budget || d.Limit != limit {
		t.Fatalf("refusal %d %q %s, want %d with {code: %s, budget: %s, limit: %d}",
			r.Error.Code, r.Error.Message, r.Error.Data, proto.CodeLeashDenied, membudget.CodeQuotaExceeded, budget, limit)
	}
}

// sleepSrc holds a session's turn, so every later exec of the session
// waits as a live task without using the CPU; the kernel's shutdown
// cancels them all.
const sleepSrc = "sleep 60s"

// TestLiveTasksBoundIsTyped: past tasks.MaxLive background tasks in a
// session, one more exec answers the live_tasks refusal, and the session
// goes on serving.
func TestLiveTasksBoundIsTyped(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("live", "")
	for i := range tasks.MaxLive {
		r := c.call("exec", map[string]any{"src": sleepSrc, "async": true})
		if r.Error != nil {
			t.Fatalf("async exec %d: %d %s", i+1, r.Error.Code, r.Error.Message)
		}
	}
	wantQuota(t, c.call("exec", map[string]any{"src": sleepSrc, "async": true}), tasks.BudgetLive, tasks.MaxLive)
	var list struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	c.ok("task.list", nil, &list)
	if len(list.Tasks) != tasks.MaxLive {
		t.Errorf("task.list after the refusal: %d tasks, want %d", len(list.Tasks), tasks.MaxLive)
	}
}

// TestForegroundTasksBoundIsTyped: with tasks.MaxForeground synchronous
// execs of one session waiting (pipelined over several connections, as
// each may run MaxInflightPerConn at once), one more answers the
// foreground_tasks refusal at once instead of an internal error.
func TestForegroundTasksBoundIsTyped(t *testing.T) {
	k := startKernel(t)
	conns := tasks.MaxForeground / MaxInflightPerConn
	id := 0
	for range conns {
		c := k.dial(t)
		c.attach("fg", "")
		for range MaxInflightPerConn {
			id++
			c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"exec","params":{"src":%q}}`, id, sleepSrc))
		}
	}
	watch := k.dial(t)
	watch.attach("fg", "")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var list struct {
			Tasks []struct {
				Foreground bool `json:"foreground"`
			} `json:"tasks"`
		}
		watch.ok("task.list", nil, &list)
		n := 0
		for _, rec := range list.Tasks {
			if rec.Foreground {
				n++
			}
		}
		if n == tasks.MaxForeground {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d foreground tasks after 10 s, want %d", n, tasks.MaxForeground)
		}
	}
	wantQuota(t, watch.call("exec", map[string]any{"src": "1 + 1"}), tasks.BudgetForeground, tasks.MaxForeground)
}
