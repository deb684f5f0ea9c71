package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// execResult is shoal_exec's structuredContent on success.
type execResult struct {
	Ref    string          `json:"ref"`
	URI    string          `json:"uri"`
	Value  json.RawMessage `json:"value"`
	Render string          `json:"-"` // the result's text (structured filled it in)
	Task   string          `json:"task"`
}

// TestE2EInitializeListsToolsAndResources: the SDK's client initializes
// against the built shoal-mcp and sees the 13 tools, the fixed resources
// and the templates.
func TestE2EInitializeListsToolsAndResources(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	init := s.cs.InitializeResult()
	if init.ServerInfo.Name != "shoal-mcp" || init.Capabilities.Resources == nil || !init.Capabilities.Resources.Subscribe {
		t.Fatalf("initialize = %+v / %+v", init.ServerInfo, init.Capabilities)
	}
	tl, err := s.cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tool.Name)
		}
	}
	want := []string{"shoal_exec", "shoal_plan", "shoal_apply", "shoal_get", "shoal_journal", "shoal_cancel", "shoal_cap_request",
		"shoal_pty_open", "shoal_pty_send", "shoal_pty_read", "shoal_pty_resize", "shoal_pty_close", "shoal_pty_list"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	rl, err := s.cs.ListResources(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rl.Resources {
		uris = append(uris, r.URI)
	}
	for _, u := range []string{"shoal://journal", "shoal://session/cwd", "shoal://session/env", "shoal://session/reef", "shoal://pty", "shoal://tasks"} {
		if !slices.Contains(uris, u) {
			t.Errorf("resources %v lack %s", uris, u)
		}
	}
	tr, err := s.cs.ListResourceTemplates(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tmpls []string
	for _, r := range tr.ResourceTemplates {
		tmpls = append(tmpls, r.URITemplate)
	}
	for _, p := range []string{"shoal://out/{n}", "shoal://val/{hash}", "shoal://task/{id}", "shoal://plan/{ref}", "shoal://events/{channel}"} {
		if !slices.ContainsFunc(tmpls, func(s string) bool { return strings.HasPrefix(s, p) }) {
			t.Errorf("templates %v lack %s", tmpls, p)
		}
	}
}

// TestE2EExec: a value comes back with ref, value and render; a failing
// final command is an outcome in value position (the default) and
// raises in stmt position; a language error is a tool error with the
// kernel's code and data.
func TestE2EExec(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 2"})
	if res.IsError {
		t.Fatalf("1 + 2: %s", text(res))
	}
	var r execResult
	structured(t, res, &r)
	if !strings.HasPrefix(r.Ref, "out:") || r.Render != "3" || string(r.Value) != `{"$":"int","v":3}` || r.URI != "shoal://out/"+strings.TrimPrefix(r.Ref, "out:") {
		t.Fatalf("1 + 2 = %+v", r)
	}
	if text(res) != "3" {
		t.Errorf("text = %q, want 3", text(res))
	}
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^false"})
	if res.IsError {
		t.Fatalf("false in value position: %s", text(res))
	}
	structured(t, res, &r)
	var oc struct {
		T  string `json:"$"`
		OK bool   `json:"ok"`
	}
	if err := json.Unmarshal(r.Value, &oc); err != nil || oc.T != "outcome" || oc.OK {
		t.Fatalf("false = %s, want a failed outcome", r.Value)
	}
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^false", "position": "stmt"})
	e := wantToolError(t, "false in stmt position", res, -32002)
	if !strings.Contains(string(e.Data), "cmd_failed") {
		t.Errorf("false in stmt position: data %s, want cmd_failed", e.Data)
	}
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 +"})
	wantToolError(t, "a parse error", res, -32001)
	// Bad arguments are refused by the schema.
	res, err := s.cs.CallTool(ctx(t), sdkCall{Name: "shoal_exec", Arguments: map[string]any{"src": "1", "bogus": true}}.params())
	if err == nil && !res.IsError {
		t.Fatalf("an unknown argument was accepted: %s", text(res))
	}
}
