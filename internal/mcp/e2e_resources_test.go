package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/auth"
)

func read(t testing.TB, s *session, uri string) *sdk.ResourceContents {
	t.Helper()
	res, err := s.cs.ReadResource(ctx(t), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0]
}

// TestE2EElidedValueByURI: a value too large to inline answers a ref
// preview; its parts are read by URI with slice, path and format.
func TestE2EElidedValueByURI(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "(1..5001).map(i => { n: i })", "elide": map[string]any{"max_items": 10}})
	if res.IsError {
		t.Fatalf("exec: %s", text(res))
	}
	var r execResult
	structured(t, res, &r)
	var v struct {
		T string `json:"$"`
	}
	if err := json.Unmarshal(r.Value, &v); err != nil || v.T != "ref" {
		t.Fatalf("value = %.300s, want an elided ref", r.Value)
	}
	c := read(t, s, r.URI+"?slice=100..103")
	var sl struct {
		Value struct {
			T string            `json:"$"`
			V []json.RawMessage `json:"v"`
		} `json:"value"`
	}
	if err := json.Unmarshal([]byte(c.Text), &sl); err != nil || sl.Value.T != "list" || len(sl.Value.V) != 3 {
		t.Fatalf("slice read = %.400s (%v)", c.Text, err)
	}
	if !strings.Contains(string(sl.Value.V[0]), `101`) {
		t.Errorf("slice 100..103 starts with %s, want n: 101", sl.Value.V[0])
	}
	c = read(t, s, r.URI+"?path=[4999].n")
	if !strings.Contains(c.Text, `"v": 5000`) {
		t.Errorf("path read = %s, want 5000", c.Text)
	}
	c = read(t, s, r.URI+"?path=[0]&format=render")
	if c.MIMEType != "text/plain" || !strings.Contains(c.Text, "n") || !strings.Contains(c.Text, "1") {
		t.Errorf("render read = %q (%s)", c.Text, c.MIMEType)
	}
	c = read(t, s, r.URI+"?elide=max_items:2")
	if !strings.Contains(c.Text, `"ref"`) {
		t.Errorf("elide read = %.300s, want a ref", c.Text)
	}
	// shoal_get reaches the same value.
	res = s.call(t, ctx(t), "shoal_get", map[string]any{"ref": r.Ref, "path": "[1].n"})
	var g struct {
		Value json.RawMessage `json:"value"`
	}
	structured(t, res, &g)
	if string(g.Value) != `{"$":"int","v":2}` {
		t.Errorf("shoal_get [1].n = %s", g.Value)
	}
	// A bad path is the kernel's error.
	if _, err := s.cs.ReadResource(ctx(t), &sdk.ReadResourceParams{URI: r.URI + "?path=.nope"}); err == nil || !strings.Contains(err.Error(), "-32005") {
		t.Errorf("a bad path read: %v, want kernel error -32005", err)
	}
	res = s.call(t, ctx(t), "shoal_get", map[string]any{"ref": "out:999"})
	wantToolError(t, "shoal_get of an unknown ref", res, -32004)
}

// TestE2ESessionResources: cwd follows cd; env, reef, tasks, journal and
// the journal's stored value read by shoal://val/{hash}.
func TestE2ESessionResources(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	sub := filepath.Join(k.dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	c := read(t, s, "shoal://session/cwd")
	if !strings.Contains(c.Text, k.dir) {
		t.Fatalf("cwd = %s, want %s", c.Text, k.dir)
	}
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "cd sub"}); res.IsError {
		t.Fatalf("cd: %s", text(res))
	}
	c = read(t, s, "shoal://session/cwd")
	if !strings.Contains(c.Text, sub) {
		t.Fatalf("cwd after cd = %s, want %s", c.Text, sub)
	}
	if c = read(t, s, "shoal://session/env"); !strings.Contains(c.Text, "HOME") {
		t.Errorf("env = %.300s", c.Text)
	}
	read(t, s, "shoal://session/reef")
	read(t, s, "shoal://tasks")
	s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"stored " + "value"`})
	c = read(t, s, "shoal://journal?limit=1")
	var j []struct {
		Src     string `json:"src"`
		Outputs []struct {
			Kind string `json:"kind"`
			Hash string `json:"hash"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(c.Text), &j); err != nil || len(j) != 1 || len(j[0].Outputs) == 0 {
		t.Fatalf("journal = %.500s (%v)", c.Text, err)
	}
	c = read(t, s, "shoal://val/"+j[0].Outputs[0].Hash)
	if !strings.Contains(c.Text, "stored value") {
		t.Errorf("val read = %.300s, want the stored value", c.Text)
	}
	res := s.call(t, ctx(t), "shoal_journal", map[string]any{"limit": 2})
	if res.IsError || !strings.Contains(text(res), "stored") {
		t.Errorf("shoal_journal = %.300s", text(res))
	}
	// Its structuredContent is an object, as MCP clients require (the
	// official TypeScript client refused the bare array the kernel
	// answers): the entries and the cursor for older ones.
	var page struct {
		Entries []struct {
			ID int64 `json:"id"`
		} `json:"entries"`
		NextCursor *int64 `json:"next_cursor"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &page); err != nil || len(page.Entries) == 0 || page.NextCursor == nil || *page.NextCursor != page.Entries[len(page.Entries)-1].ID {
		t.Errorf("shoal_journal structuredContent = %.300s (%v)", b, err)
	}
	next := s.call(t, ctx(t), "shoal_journal", map[string]any{"limit": 2, "cursor": *page.NextCursor})
	b, _ = json.Marshal(next.StructuredContent)
	if next.IsError || !strings.Contains(string(b), `"entries":[`) || strings.Contains(string(b), fmt.Sprintf(`"id":%d,`, *page.NextCursor)) {
		t.Errorf("the next page = %.300s", b)
	}
}

// TestE2EPlanApproveApply: an agent's plan waits for approval; the kernel
// owner approves it over the raw socket; shoal_apply then runs it.
func TestE2EPlanApproveApply(t *testing.T) {
	base := newBase(t)
	policy := filepath.Join(base.base, "policy.toml")
	dir := base.dir
	if err := os.WriteFile(policy, []byte(strings.ReplaceAll(`
[principal."agent:worker"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"
`, "DIR", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	base.start(t, "--policy", policy)
	_, secret, err := auth.Open(base.store).Create("agent:worker", "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, base, "--session", "work", "--token", secret)
	res := s.call(t, ctx(t), "shoal_plan", map[string]any{"src": "ls ./"})
	if res.IsError {
		t.Fatalf("plan: %s", text(res))
	}
	var p struct {
		PlanRef         string `json:"plan_ref"`
		State           string `json:"state"`
		ApprovalPending bool   `json:"approval_pending"`
	}
	structured(t, res, &p)
	if p.State != "pending" || !p.ApprovalPending {
		t.Fatalf("plan = %+v, want pending", p)
	}
	res = s.call(t, ctx(t), "shoal_apply", map[string]any{"plan_ref": p.PlanRef})
	wantToolError(t, "apply before approval", res, -32011)
	// The agent cannot approve its own plan.
	res = s.call(t, ctx(t), "shoal_cap_request", map[string]any{"plan_ref": p.PlanRef})
	wantToolError(t, "self approval", res, -32010)
	c := read(t, s, "shoal://plan/"+strings.TrimPrefix(p.PlanRef, "plan:"))
	if !strings.Contains(c.Text, `"ls ./"`) {
		t.Errorf("plan resource = %.300s", c.Text)
	}
	owner := base.raw(t, "owner", "")
	if err := owner.Call(ctx(t), "cap.request", map[string]any{"plan_ref": p.PlanRef}, nil); err != nil {
		t.Fatal(err)
	}
	res = s.call(t, ctx(t), "shoal_apply", map[string]any{"plan_ref": p.PlanRef})
	if res.IsError {
		t.Fatalf("apply after approval: %s", text(res))
	}
	if !strings.Contains(text(res), "hello.txt") {
		t.Errorf("apply = %.300s, want the listing", text(res))
	}
	res = s.call(t, ctx(t), "shoal_apply", map[string]any{"plan_ref": p.PlanRef})
	wantToolError(t, "a second apply", res, -32012)
}

// TestE2ESubscribeUnsubscribe: a subscribed event channel's events
// arrive as resource updates; after unsubscribe none does.
func TestE2ESubscribeUnsubscribe(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	uri := "shoal://events/user.build"
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	pub := k.raw(t, "default", "")
	if _, err := pub.EventsPublish(ctx(t), "user.build", map[string]any{"step": 1}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !contains(s.notes.updates(), uri); {
		select {
		case <-s.notes.changed:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("no update for %s after a publish; stderr %s", uri, s.errText())
		}
	}
	c := read(t, s, uri)
	if !strings.Contains(c.Text, `"step"`) {
		t.Errorf("events read = %.300s", c.Text)
	}
	if err := s.cs.Unsubscribe(ctx(t), &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	n := len(s.notes.updates())
	for i := range 3 {
		if _, err := pub.EventsPublish(ctx(t), "user.build", map[string]any{"step": 2 + i}); err != nil {
			t.Fatal(err)
		}
	}
	// A marker subscription, published after the others, proves the
	// facade forwarded everything it was going to.
	mark := "shoal://events/user.mark"
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: mark}); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.EventsPublish(ctx(t), "user.mark", 1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !contains(s.notes.updates(), mark); {
		select {
		case <-s.notes.changed:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("no update for the marker channel: %v", s.notes.updates())
		}
	}
	time.Sleep(200 * time.Millisecond)
	for _, u := range s.notes.updates()[n:] {
		if u == uri {
			t.Fatalf("an update for %s arrived after unsubscribe", uri)
		}
	}
	// Task and journal resources can be subscribed too; a plain one not.
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: "shoal://journal"}); err != nil {
		t.Fatal(err)
	}
	s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "7"})
	for deadline := time.Now().Add(10 * time.Second); !contains(s.notes.updates(), "shoal://journal"); {
		select {
		case <-s.notes.changed:
		case <-time.After(time.Until(deadline)):
			t.Fatal("no journal update after an exec")
		}
	}
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: "shoal://session/env"}); err == nil {
		t.Error("subscribing to shoal://session/env succeeded")
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
