package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/proto"
)

// schemaChecker validates tool results against the output schemas the
// server advertised.
type schemaChecker struct {
	schemas map[string]*jsonschema.Resolved
	tools   map[string]*sdk.Tool
	called  map[string]bool
}

func newSchemaChecker(t *testing.T, s *session) *schemaChecker {
	t.Helper()
	tl, err := s.cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &schemaChecker{schemas: map[string]*jsonschema.Resolved{}, tools: map[string]*sdk.Tool{}, called: map[string]bool{}}
	for _, tool := range tl.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil || tool.OutputSchema == nil {
			t.Fatalf("%s: no output schema (%v)", tool.Name, err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		if sch.Type != "object" {
			t.Errorf("%s: output schema type %q, want object", tool.Name, sch.Type)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		c.schemas[tool.Name], c.tools[tool.Name] = r, tool
	}
	return c
}

// check calls a tool and validates its structuredContent (success or
// tool error) against the tool's output schema; a tool error must carry
// a specific code. It returns the result and its structuredContent.
func (c *schemaChecker) check(t *testing.T, s *session, name string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	res := s.call(t, ctx(t), name, args)
	c.called[name] = true
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s %v: structuredContent is not an object: %s", name, args, b)
	}
	if err := c.schemas[name].Validate(v); err != nil {
		t.Errorf("%s %v: structuredContent %s does not match the output schema: %v", name, args, b, err)
	}
	if res.IsError {
		if code, _ := m["error"].(string); code == "" || code == "custom" {
			t.Errorf("%s %v: tool error without a specific code: %s", name, args, b)
		}
	}
	return res, m
}

// TestE2EEveryToolResultMatchesItsSchema: every tool's real answers,
// successes and errors, through shoal-mcp and a real kernel, validate
// against the output schema the tool advertises.
func TestE2EEveryToolResultMatchesItsSchema(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	c := newSchemaChecker(t, s)

	res, v := c.check(t, s, "shoal_exec", map[string]any{"src": "[1, 2, 3].map(x => x * 14).sum()"})
	if res.IsError || text(res) != "84" || v["render"] != nil {
		t.Fatalf("exec = %s / %v: want text 84 and no render member", text(res), v)
	}
	ref := v["ref"].(string)
	c.check(t, s, "shoal_exec", map[string]any{"src": "ls"})
	c.check(t, s, "shoal_exec", map[string]any{"src": "sleep 0.5; 42"}) // awaited as a task
	c.check(t, s, "shoal_exec", map[string]any{"src": "false"})
	c.check(t, s, "shoal_exec", map[string]any{"src": "false", "position": "stmt"})
	c.check(t, s, "shoal_exec", map[string]any{"src": "1 +"})
	if _, e := c.check(t, s, "shoal_exec", map[string]any{"mode": "run"}); e["error"] != "invalid_arguments" {
		t.Errorf("exec without src: %v", e)
	}
	_, e := c.check(t, s, "shoal_exec", map[string]any{"src": "ls no-such-file"})
	if e["error"] != "not_found" {
		t.Errorf("ls of a missing file: error %v, want not_found", e["error"])
	}
	c.check(t, s, "shoal_exec", map[string]any{"src": "rm x", "mode": "plan"})
	_, bg := c.check(t, s, "shoal_exec", map[string]any{"src": "sleep 30", "background": true})
	c.check(t, s, "shoal_cancel", map[string]any{"task": bg["task"]})
	c.check(t, s, "shoal_cancel", map[string]any{"task": "task:999999"})
	c.check(t, s, "shoal_exec", map[string]any{"src": "sleep 30", "timeout_ms": 100})
	c.check(t, s, "shoal_get", map[string]any{"ref": ref})
	c.check(t, s, "shoal_get", map[string]any{"ref": "out:999999"})
	_, j := c.check(t, s, "shoal_journal", map[string]any{"limit": 3})
	if entries, _ := j["entries"].([]any); len(entries) == 0 || entries[0].(map[string]any)["ast"] != nil {
		t.Errorf("journal entries = %v, want some, without ast", j)
	}
	_, j = c.check(t, s, "shoal_journal", map[string]any{"limit": 1, "ast": true})
	if entries, _ := j["entries"].([]any); len(entries) == 0 || entries[0].(map[string]any)["ast"] == nil {
		t.Errorf("journal entries with ast: true = %v", j)
	}
	c.check(t, s, "shoal_journal", map[string]any{"head": "no-such-head"})
	_, p := c.check(t, s, "shoal_plan", map[string]any{"src": "echo planned"})
	c.check(t, s, "shoal_cap_request", map[string]any{"plan_ref": p["plan_ref"]})
	c.check(t, s, "shoal_apply", map[string]any{"plan_ref": p["plan_ref"]})
	c.check(t, s, "shoal_apply", map[string]any{"plan_ref": "plan:gone"})
	c.check(t, s, "shoal_plan", map[string]any{"src": "1 +"})

	res, o := c.check(t, s, "shoal_pty_open", map[string]any{"cmd": "cat"})
	skipUnlessPTY(t, res, "pty.open")
	if res.IsError {
		t.Fatalf("pty open: %s", text(res))
	}
	id := o["pty_id"]
	c.check(t, s, "shoal_pty_send", map[string]any{"pty_id": id, "input": []any{"hello", map[string]any{"key": "Enter"}}})
	c.check(t, s, "shoal_pty_read", map[string]any{"pty_id": id, "wait_ms": 1000, "until_change": true})
	c.check(t, s, "shoal_pty_resize", map[string]any{"pty_id": id, "cols": 100, "rows": 30})
	c.check(t, s, "shoal_pty_list", map[string]any{})
	c.check(t, s, "shoal_pty_close", map[string]any{"pty_id": id})
	c.check(t, s, "shoal_pty_read", map[string]any{"pty_id": id})
	c.check(t, s, "shoal_pty_open", map[string]any{"cmd": "/no/such/program"})

	for name := range c.schemas {
		if !c.called[name] {
			t.Errorf("%s was not called", name)
		}
	}
}

// TestE2EApprovalNextStep: an exec the policy holds for approval answers
// error approval_required whose next step names a stored plan and the
// shoal_apply call; once the owner approves that plan, the call runs it.
// A refusal names what the policy lacks.
func TestE2EApprovalNextStep(t *testing.T) {
	base := newBase(t)
	policy := filepath.Join(base.base, "policy.toml")
	if err := os.WriteFile(policy, []byte(strings.ReplaceAll(`
[principal."agent:worker"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"
`, "DIR", base.dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base.dir, "hello.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	base.start(t, "--policy", policy)
	_, secret, err := auth.Open(base.store).Create("agent:worker", "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, base, "--session", "work", "--token", secret)
	c := newSchemaChecker(t, s)
	res, e := c.check(t, s, "shoal_exec", map[string]any{"src": "ls ./"})
	if !res.IsError || e["error"] != "approval_required" {
		t.Fatalf("exec = %s, want approval_required", text(res))
	}
	t.Logf("exec held for approval, as the client sees it:\n%s", text(res))
	next, _ := e["next"].(map[string]any)
	ref, _ := next["plan_ref"].(string)
	args, _ := next["arguments"].(map[string]any)
	if !strings.HasPrefix(ref, "plan:") || next["tool"] != "shoal_apply" || args["plan_ref"] != ref || !strings.Contains(text(res), ref) {
		t.Fatalf("next = %v (text %s)", next, text(res))
	}
	res, e = c.check(t, s, "shoal_apply", args)
	if e["error"] != "approval_required" {
		t.Fatalf("apply before approval = %s", text(res))
	}
	if n, _ := e["next"].(map[string]any); n["plan_ref"] != ref {
		t.Errorf("apply before approval: next = %v", e["next"])
	}
	owner := base.raw(t, "owner", "")
	if err := owner.Call(ctx(t), "cap.request", map[string]any{"plan_ref": ref}, nil); err != nil {
		t.Fatal(err)
	}
	res, _ = c.check(t, s, "shoal_apply", args)
	if res.IsError || !strings.Contains(text(res), "hello.txt") {
		t.Fatalf("apply after approval = %s", text(res))
	}
	res, e = c.check(t, s, "shoal_exec", map[string]any{"src": "rm hello.txt"})
	if !res.IsError || e["error"] != "leash_denied" || e["next"] == nil {
		t.Fatalf("a refused exec = %s", text(res))
	}
	t.Logf("exec refused, as the client sees it:\n%s", text(res))
	if grants, _ := e["next"].(map[string]any)["grants"].([]any); len(grants) == 0 || !strings.HasPrefix(grants[0].(string), "fs.delete for ") {
		t.Errorf("the refusal's missing grants = %v", e["next"])
	}
}

// TestE2EAnnotationsHoldToEffects: a tool advertised read-only changes
// nothing the kernel or the file system shows (journal, tasks, plans,
// PTYs, the session's directory); shoal_exec is advertised as able to do
// anything, and every effect kind a plan reports is one the effect
// vocabulary has.
func TestE2EAnnotationsHoldToEffects(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	c := newSchemaChecker(t, s)
	raw := k.raw(t, "default", "")
	state := func() string {
		var j []json.RawMessage
		if err := raw.Call(ctx(t), "journal.query", map[string]any{"limit": 1}, &j); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range []string{"task.list", "plan.list", "pty.list"} {
			var v json.RawMessage
			if err := raw.Call(ctx(t), m, map[string]any{}, &v); err != nil {
				t.Fatal(err)
			}
			b.Write(v)
		}
		entries, _ := os.ReadDir(k.dir)
		for _, e := range entries {
			b.WriteString(e.Name())
		}
		return string(mustMarshal(t, j)) + b.String()
	}
	_, v := c.check(t, s, "shoal_exec", map[string]any{"src": "40 + 2"})
	args := map[string]map[string]any{
		"shoal_get": {"ref": v["ref"]}, "shoal_journal": {"limit": 5},
		"shoal_pty_list": {}, "shoal_pty_read": {"pty_id": "pty:1"},
	}
	var readOnly []string
	for name, tool := range c.tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations %+v", name, a)
		}
		if a.ReadOnlyHint {
			readOnly = append(readOnly, name)
		}
	}
	slices.Sort(readOnly)
	if want := []string{"shoal_get", "shoal_journal", "shoal_pty_list", "shoal_pty_read"}; !slices.Equal(readOnly, want) {
		t.Errorf("read-only tools %v, want %v", readOnly, want)
	}
	for _, name := range readOnly {
		before := state()
		c.check(t, s, name, args[name])
		if after := state(); after != before {
			t.Errorf("read-only %s changed what the kernel shows:\n%s\n%s", name, before, after)
		}
	}
	exec := c.tools["shoal_exec"].Annotations
	if exec.ReadOnlyHint || !*exec.DestructiveHint || exec.IdempotentHint || !*exec.OpenWorldHint {
		t.Errorf("shoal_exec annotations %+v", exec)
	}
	if plan := c.tools["shoal_plan"].Annotations; plan.ReadOnlyHint || *plan.DestructiveHint {
		t.Errorf("shoal_plan (stores a plan, runs nothing) annotations %+v", plan)
	}
	for _, src := range []string{"rm x", "ls; echo hi > y.txt", "env.HOME", "^git status", "now()"} {
		_, p := c.check(t, s, "shoal_plan", map[string]any{"src": src})
		effects, _ := p["effects"].([]any)
		for _, e := range effects {
			kind, _ := e.(map[string]any)["kind"].(string)
			if !slices.Contains(proto.EffectKinds, kind) {
				t.Errorf("plan of %q has effect kind %q, outside the vocabulary shoal_exec's annotations are derived from", src, kind)
			}
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
