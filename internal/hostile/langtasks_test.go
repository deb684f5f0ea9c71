//go:build linux

package hostile

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Language-task attack bounds, stated once: the kernel-wide and
// per-principal bounds on running language tasks set by flag, the task
// the attacker spawns (no process: sleep is the evaluator's own wait, which
// a principal denied every effect may still run), and what the kernel may
// take meanwhile.
const (
	langKernelBound    = 24 // --lang-tasks
	langPrincipalBound = 16 // --principal-lang-tasks
	langSessions       = 10 // sessions per attacking principal
	langTaskSleep      = "10s"
	langRSS            = 128 << 20
)

// spawnMany runs attempts execs of `spawn { sleep … }` spread over the
// sessions, in parallel per session, and returns how many started a task
// and the budgets named by the refusals.
func spawnMany(t *testing.T, sessions []*client.Client, attempts int) (started int, refused map[string]int) {
	t.Helper()
	ctx := Ctx(t)
	var ok atomic.Int64
	var mu sync.Mutex
	refused = map[string]int{}
	var wg sync.WaitGroup
	for i, c := range sessions {
		n := attempts / len(sessions)
		if i < attempts%len(sessions) {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				res, err := c.Exec(ctx, client.ExecParams{Src: "spawn { sleep " + langTaskSleep + " }"})
				if err == nil {
					if !strings.Contains(string(res.Value), `"task:`) {
						t.Errorf("spawn answered %s", res.Value)
					}
					ok.Add(1)
					continue
				}
				budget := langRefusal(t, err)
				mu.Lock()
				refused[budget]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return int(ok.Load()), refused
}

// langRefusal checks that err is a spawn refused by a task bound (RAISED,
// code quota_exceeded, the message naming the budget) and returns the
// budget it names.
func langRefusal(t *testing.T, err error) string {
	t.Helper()
	if code, _ := client.ErrorCode(err); code != proto.CodeRaised {
		t.Fatalf("refused spawn: %v, want RAISED", err)
	}
	var d struct {
		Code string `json:"code"`
	}
	if derr := client.ErrorData(err, &d); derr != nil || d.Code != "quota_exceeded" {
		t.Fatalf("refused spawn: %v (data %+v, %v), want quota_exceeded", err, d, derr)
	}
	for _, b := range []string{"principal_lang_tasks", "lang_tasks"} {
		if strings.Contains(err.Error(), b+" budget") {
			return b
		}
	}
	t.Fatalf("refusal %q names no task budget", err)
	return ""
}

// TestHostileLanguageTasks: token principals spawn thirteen times the
// kernel-wide bound of language tasks over many sessions. The first
// principal is stopped at its own bound (principal_lang_tasks), the second
// at what is left of the kernel's (lang_tasks); every refusal is typed, the
// kernel stays up and small, and the owner is served throughout. Once the
// tasks have ended and their sessions closed (idle), the whole kernel-wide
// bound is free again: nothing stayed charged.
func TestHostileLanguageTasks(t *testing.T) {
	k := Start(t, Options{Flags: []string{
		"--lang-tasks", fmt.Sprint(langKernelBound), "--principal-lang-tasks", fmt.Sprint(langPrincipalBound),
		"--session-idle", "300ms",
	}})
	hb := k.Heartbeat(t)
	attempts := 10 * langPrincipalBound

	attach := func(principal string) []*client.Client {
		tok := k.Token(t, principal)
		var cs []*client.Client
		for i := range langSessions {
			cs = append(cs, k.Attach(t, fmt.Sprintf("s%d", i), tok))
		}
		return cs
	}
	a := attach("agent:spawner-a")
	started, refused := spawnMany(t, a, attempts)
	if started != langPrincipalBound || refused["principal_lang_tasks"] != attempts-langPrincipalBound {
		t.Errorf("first principal: %d started, refusals %v; want %d started, %d refused by principal_lang_tasks",
			started, refused, langPrincipalBound, attempts-langPrincipalBound)
	}
	b := attach("agent:spawner-b")
	left := langKernelBound - langPrincipalBound
	started, refused = spawnMany(t, b, attempts)
	if started != left || refused["lang_tasks"] != attempts-left {
		t.Errorf("second principal: %d started, refusals %v; want %d started, %d refused by lang_tasks",
			started, refused, left, attempts-left)
	}
	// The running tasks are the kernel's tasks of their sessions.
	var list struct {
		Tasks []struct {
			State string `json:"state"`
		} `json:"tasks"`
	}
	running := 0
	for _, c := range append(a, b...) {
		if err := c.Call(Ctx(t), "task.list", nil, &list); err != nil {
			t.Fatalf("task.list: %v", err)
		}
		for _, r := range list.Tasks {
			if r.State == "running" {
				running++
			}
		}
	}
	if running != langKernelBound {
		t.Errorf("task.list shows %d running tasks over the attackers' sessions, want %d", running, langKernelBound)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, langRSS)

	// The attackers leave; their tasks end and their sessions close.
	for _, c := range append(a, b...) {
		c.Close()
	}
	owner := k.Owner(t)
	ctx := Ctx(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := owner.Exec(ctx, client.ExecParams{Src: fmt.Sprintf(
			"var ts = []\ntry { for i in 0..%d { ts = ts + [spawn { sleep 60s }] } } catch e { null }\nvar n = ts.len()\nfor tk in ts { tk.cancel() }\nn", langKernelBound)})
		if err != nil {
			t.Fatalf("owner spawns: %v", err)
		}
		if strings.Contains(string(res.Value), fmt.Sprintf(`"v":%d`, langKernelBound)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("60s after the attackers left the owner starts only %s of %d tasks: charges leaked", res.Value, langKernelBound)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// and one past the bound is still refused.
	_, err := owner.Exec(ctx, client.ExecParams{Src: fmt.Sprintf(
		"var ts = []\nfor i in 0..%d { ts = ts + [spawn { sleep 60s }] }", langKernelBound+1)})
	if langRefusal(t, err) != "lang_tasks" {
		t.Errorf("owner past the kernel bound: %v", err)
	}
	k.Alive(t)
}
