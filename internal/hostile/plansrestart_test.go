//go:build linux

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// restartPolicy lets agent:worker read OUT, every plan of its needing
// approval, and makes agent:lead an approver. extra is appended (a
// changed policy is another generation).
func restartPolicy(t *testing.T, path, out, extra string) {
	t.Helper()
	doc := fmt.Sprintf(`
[principal."agent:worker"]
fs.read = [%[1]q, "%[1]s/**"]
auto_apply = "never"

[principal."agent:lead"]
fs.read = [%[1]q, "%[1]s/**"]
approve = true
%[2]s`, out, extra)
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// restartSetup makes a temporary directory holding out (a directory the
// workers may list) and the policy restartPolicy writes, and returns the
// kernel flags naming it.
func restartSetup(t *testing.T) (out, pol string, flags []string) {
	t.Helper()
	base := t.TempDir()
	out = filepath.Join(base, "out")
	if err := os.MkdirAll(out, 0o700); err != nil {
		t.Fatal(err)
	}
	pol = filepath.Join(base, "policy.toml")
	restartPolicy(t, pol, out, "")
	return out, pol, []string{"--policy", pol}
}

type restartPlan struct {
	PlanRef   string `json:"plan_ref"`
	State     string `json:"state"`
	Approver  string `json:"approver"`
	ExpiresNS int64  `json:"expires_ns"`
}

func planOf(t *testing.T, c *client.Client, src string) restartPlan {
	t.Helper()
	var p restartPlan
	if err := c.Call(Ctx(t), "exec", map[string]any{"src": src, "mode": "plan"}, &p); err != nil || p.State != "pending" {
		t.Fatalf("plan %q: %+v, %v", src, p, err)
	}
	return p
}

func getState(t *testing.T, c *client.Client, ref string) (string, error) {
	t.Helper()
	var p restartPlan
	err := c.Call(Ctx(t), "plan.get", map[string]any{"plan_ref": ref}, &p)
	return p.State, err
}

// wantGone checks err is UNKNOWN_PLAN whose data says state.
func wantGone(t *testing.T, what string, err error, state string) {
	t.Helper()
	if got, ok := client.PlanGoneState(err); !ok || got != state {
		t.Errorf("%s: %v (state %q), want -32012 with data.state %q", what, err, got, state)
	}
}

func decide(t *testing.T, lead *client.Client, ref string, deny bool) {
	t.Helper()
	var a restartPlan
	if err := lead.Call(Ctx(t), "cap.request", map[string]any{"plan_ref": ref, "deny": deny}, &a); err != nil {
		t.Fatalf("cap.request %s deny=%v: %v", ref, deny, err)
	}
}

func kill9(t *testing.T, k *Kernel) {
	t.Helper()
	k.ExpectExit()
	if err := k.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.Exited()
}

// appliedRows counts the journal's entries of src that ran approved.
func appliedRows(t *testing.T, owner *client.Client, src string) int {
	t.Helper()
	var rows []struct {
		Src     string `json:"src"`
		Verdict string `json:"verdict"`
	}
	if err := owner.Call(Ctx(t), "journal.query", map[string]any{"limit": 1000}, &rows); err != nil {
		t.Fatalf("journal.query: %v", err)
	}
	n := 0
	for _, r := range rows {
		if r.Src == src && r.Verdict == "approved" {
			n++
		}
	}
	return n
}

// TestHostilePlansSurviveKill: stored plans, approvals, denials, expiry
// and the applied mark survive kill -9 of the kernel binary and a restart
// on the same state directory. An approved plan applies exactly once,
// even when the kernel is killed right after applying it; a denied one
// stays denied; a pending one can still be approved and applied; one that
// expired while the kernel was down says expired, not denied.
func TestHostilePlansSurviveKill(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	for _, d := range []string{"a", "d", "p"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	pol := filepath.Join(base, "policy.toml")
	restartPolicy(t, pol, out, "")
	flags := []string{"--policy", pol}

	// A plan that expires while no kernel runs.
	k1 := Start(t, Options{Flags: append(flags, "--plan-ttl", "1s")})
	tok, leadTok := k1.Token(t, "agent:worker"), k1.Token(t, "agent:lead")
	w1 := k1.Attach(t, "w", tok)
	e := planOf(t, w1, "ls "+out)
	if err := w1.Call(Ctx(t), "plan.get", map[string]any{"plan_ref": e.PlanRef}, &e); err != nil || e.ExpiresNS == 0 {
		t.Fatalf("plan.get: %+v, %v", e, err)
	}
	kill9(t, k1)
	for time.Now().UnixNano() <= e.ExpiresNS {
		time.Sleep(50 * time.Millisecond)
	}

	k2 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	w, lead := k2.Attach(t, "w", tok), k2.Attach(t, "l", leadTok)
	wantGone(t, "the plan that expired while the kernel was down", func() error { _, err := getState(t, w, e.PlanRef); return err }(), "expired")
	srcA, srcD, srcP := "ls "+out+"/a", "ls "+out+"/d", "ls "+out+"/p"
	a, d, p := planOf(t, w, srcA), planOf(t, w, srcD), planOf(t, w, srcP)
	decide(t, lead, a.PlanRef, false)
	decide(t, lead, d.PlanRef, true)
	kill9(t, k2)

	k3 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	w, lead = k3.Attach(t, "w", tok), k3.Attach(t, "l", leadTok)
	for ref, want := range map[string]string{a.PlanRef: "approved", d.PlanRef: "denied", p.PlanRef: "pending"} {
		if st, err := getState(t, w, ref); err != nil || st != want {
			t.Errorf("after kill -9: plan state %q, %v; want %q", st, err, want)
		}
	}
	var listed struct {
		Plans []restartPlan `json:"plans"`
	}
	if err := w.Call(Ctx(t), "plan.list", nil, &listed); err != nil || len(listed.Plans) != 3 {
		t.Errorf("plan.list after kill -9: %+v, %v", listed, err)
	}
	wantGone(t, "the expired plan after another restart", func() error { _, err := getState(t, w, e.PlanRef); return err }(), "expired")
	WantCode(t, w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": d.PlanRef}, nil), proto.CodeLeashDenied)
	WantCode(t, w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil), proto.CodeApprovalRequired)
	WantCode(t, lead.Call(Ctx(t), "cap.request", map[string]any{"plan_ref": d.PlanRef}, nil), proto.CodeLeashDenied)
	decide(t, lead, p.PlanRef, false)
	if err := w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": a.PlanRef}, nil); err != nil {
		t.Fatalf("applying the plan approved before the kill: %v", err)
	}
	wantGone(t, "a second apply", w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": a.PlanRef}, nil), "applied")
	kill9(t, k3) // right after the apply: its mark must hold

	k4 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	w, owner := k4.Attach(t, "w", tok), k4.Owner(t)
	wantGone(t, "applying again after kill -9", w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": a.PlanRef}, nil), "applied")
	if st, err := getState(t, w, a.PlanRef); err != nil || st != "applied" {
		t.Errorf("plan.get of the applied plan after kill -9: %q, %v", st, err)
	}
	if err := w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil); err != nil {
		t.Fatalf("applying the plan approved after the first restart: %v", err)
	}
	if st, err := getState(t, w, d.PlanRef); err != nil || st != "denied" {
		t.Errorf("the denied plan after three restarts: %q, %v", st, err)
	}
	if n := appliedRows(t, owner, srcA); n != 1 {
		t.Errorf("the approved plan ran %d times, want once", n)
	}
	if n := appliedRows(t, owner, srcD); n != 0 {
		t.Errorf("the denied plan ran %d times", n)
	}
	// Another principal learns nothing from a tombstone.
	other := k4.Attach(t, "w", leadTok)
	err := other.Call(Ctx(t), "plan.get", map[string]any{"plan_ref": a.PlanRef}, nil)
	var data map[string]any
	if code, _ := client.ErrorCode(err); code != proto.CodeUnknownPlan || (client.ErrorData(err, &data) == nil && data["state"] != nil) {
		t.Errorf("another principal's plan.get of a tombstone: %v (data %v)", err, data)
	}
}

// TestHostilePlanApprovalPolicyChange: an approval is bound to the policy
// generation. Approved, then the kernel stops (SIGTERM) and starts on the
// same state directory with a changed policy: the plan waits for approval
// again (-32011) until an approver approves it under the new policy.
// Restarted with the policy unchanged, an approval stands.
func TestHostilePlanApprovalPolicyChange(t *testing.T) {
	out, pol, flags := restartSetup(t)
	k1 := Start(t, Options{Flags: flags})
	tok, leadTok := k1.Token(t, "agent:worker"), k1.Token(t, "agent:lead")
	w, lead := k1.Attach(t, "w", tok), k1.Attach(t, "l", leadTok)
	kept, changed := planOf(t, w, "ls "+out), planOf(t, w, "ls "+out+"/")
	decide(t, lead, kept.PlanRef, false)
	decide(t, lead, changed.PlanRef, false)
	k1.ExpectExit()
	if err := k1.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-k1.Exited()

	// Same policy: the approval stands.
	k2 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	w = k2.Attach(t, "w", tok)
	if st, err := getState(t, w, kept.PlanRef); err != nil || st != "approved" {
		t.Fatalf("approval after SIGTERM and restart, same policy: %q, %v", st, err)
	}
	if err := w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": kept.PlanRef}, nil); err != nil {
		t.Fatalf("apply under the same policy: %v", err)
	}
	k2.Stop(t)

	// A changed policy: the approval is not honoured.
	restartPolicy(t, pol, out, "\n# reviewed again\n")
	k3 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	w, lead = k3.Attach(t, "w", tok), k3.Attach(t, "l", leadTok)
	if st, err := getState(t, w, changed.PlanRef); err != nil || st != "pending" {
		t.Errorf("approval under a changed policy: %q, %v; want pending", st, err)
	}
	err := w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": changed.PlanRef}, nil)
	WantCode(t, err, proto.CodeApprovalRequired)
	if !strings.Contains(err.Error(), "approval") {
		t.Errorf("refusal says %v", err)
	}
	decide(t, lead, changed.PlanRef, false)
	if err := w.Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": changed.PlanRef}, nil); err != nil {
		t.Fatalf("apply approved under the new policy: %v", err)
	}
}

// TestHostilePlanTombstoneFlood: token principals apply ten times as many
// plans as a tombstone bound keeps, per principal (--plan-tombstones) and
// for all principals together (--kernel-plan-tombstones, two principals
// taking turns). Only the newest that many refs keep saying "applied" to
// their owners (the older are plain UNKNOWN_PLAN), before and after kill
// -9 and a restart (the forgotten rows are gone from the journal too); the
// kernel stays up and the owner is served throughout.
func TestHostilePlanTombstoneFlood(t *testing.T) {
	const tombs = 8
	for _, c := range []struct {
		name       string
		flags      []string
		principals []string
	}{
		{"per principal", []string{"--plan-tombstones", fmt.Sprint(tombs)}, []string{"agent:evil"}},
		{"kernel-wide", []string{"--plan-tombstones", "1000", "--kernel-plan-tombstones", fmt.Sprint(tombs)}, []string{"agent:evil", "agent:evil2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := Start(t, Options{Flags: c.flags})
			hb := k.Heartbeat(t)
			toks := make([]string, len(c.principals))
			clients := make([]*client.Client, len(c.principals))
			for i, p := range c.principals {
				toks[i] = k.Token(t, p)
				clients[i] = k.Attach(t, fmt.Sprint("e", i), toks[i])
			}
			type applied struct {
				ref   string
				owner int
			}
			var refs []applied
			for i := range 10 * tombs {
				who := i % len(clients)
				var p restartPlan
				if err := clients[who].Call(Ctx(t), "exec", map[string]any{"src": fmt.Sprintf("%d + 1", i), "mode": "plan"}, &p); err != nil || p.State != "allowed" {
					t.Fatalf("plan %d: %+v, %v", i, p, err)
				}
				if err := clients[who].Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": p.PlanRef}, nil); err != nil {
					t.Fatalf("apply %d: %v", i, err)
				}
				refs = append(refs, applied{p.PlanRef, who})
			}
			check := func(cs []*client.Client, when string) {
				t.Helper()
				for i, r := range refs {
					err := cs[r.owner].Call(Ctx(t), "plan.apply", map[string]any{"plan_ref": r.ref}, nil)
					if i >= len(refs)-tombs {
						wantGone(t, fmt.Sprintf("%s: recent ref %d", when, i), err, "applied")
						continue
					}
					var data map[string]any
					if code, _ := client.ErrorCode(err); code != proto.CodeUnknownPlan || (client.ErrorData(err, &data) == nil && data["state"] != nil) {
						t.Fatalf("%s: forgotten ref %d: %v (data %v), want plain -32012", when, i, err, data)
					}
				}
			}
			check(clients, "live")
			hb.Stop(t)
			k.Alive(t)
			kill9(t, k)
			k2 := Start(t, Options{Flags: c.flags, StateDir: k.StateDir})
			again := make([]*client.Client, len(toks))
			for i, tok := range toks {
				again[i] = k2.Attach(t, fmt.Sprint("e", i), tok)
			}
			check(again, "after kill -9")
		})
	}
}
