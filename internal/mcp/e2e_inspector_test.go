package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestE2EInspectorCLI: the MCP Inspector's CLI (npm
// @modelcontextprotocol/inspector 2.12.0, --cli mode) lists the tools of
// the built shoal-mcp and calls some, each time starting shoal-mcp over
// stdio, which autostarts its kernel. It needs node and the Inspector
// installed where SHOAL_MCP_INSPECTOR_NODE_MODULES says (npm install
// --prefix DIR @modelcontextprotocol/inspector@2.12.0, then
// DIR/node_modules); without them it is skipped, saying which is missing.
func TestE2EInspectorCLI(t *testing.T) {
	mods := os.Getenv("SHOAL_MCP_INSPECTOR_NODE_MODULES")
	if mods == "" {
		t.Skip("SHOAL_MCP_INSPECTOR_NODE_MODULES is not set: install @modelcontextprotocol/inspector@2.12.0 with npm and point it at node_modules")
	}
	inspector := filepath.Join(mods, ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Skipf("no mcp-inspector under %s: %v", mods, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	k := newBase(t)
	// run runs the CLI; it exits 1 for a call that answers a tool error
	// (tool_is_error), having printed the answer, which isError says.
	run := func(isError bool, args ...string) map[string]any {
		t.Helper()
		all := append([]string{"--cli", bin("shoal-mcp"), "--socket", k.sock}, args...)
		cmd := command(k, inspector, all...)
		cmd.Env = append(cmd.Env, "PATH=/usr/local/bin:/usr/bin:/bin:"+filepath.Dir(inspector))
		out, err := cmd.Output()
		if err != nil && !isError {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("mcp-inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		var v map[string]any
		if err := json.NewDecoder(bytes.NewReader(out)).Decode(&v); err != nil {
			t.Fatalf("mcp-inspector %v answered %s: %v", args, out, err)
		}
		return v
	}
	list := run(false, "--method", "tools/list")
	tools, _ := list["tools"].([]any)
	if len(tools) != 13 {
		t.Fatalf("tools/list = %v", list)
	}
	for _, tool := range tools {
		m := tool.(map[string]any)
		if m["outputSchema"] == nil || m["annotations"] == nil {
			t.Errorf("%s has no outputSchema or annotations", m["name"])
		}
	}
	res := run(false, "--method", "tools/call", "--tool-name", "shoal_exec", "--tool-arg", "src=[1, 2, 3].map(x => x * 14).sum()")
	sc, _ := res["structuredContent"].(map[string]any)
	content, _ := res["content"].([]any)
	if res["isError"] == true || sc["ref"] != "out:1" || len(content) == 0 || content[0].(map[string]any)["text"] != "84" {
		t.Fatalf("shoal_exec = %v", res)
	}
	res = run(false, "--method", "tools/call", "--tool-name", "shoal_journal", "--tool-arg", "limit=2")
	if sc, _ := res["structuredContent"].(map[string]any); res["isError"] == true || sc["entries"] == nil {
		t.Fatalf("shoal_journal = %v", res)
	}
	res = run(true, "--method", "tools/call", "--tool-name", "shoal_exec", "--tool-arg", "src=ls no-such-file")
	if sc, _ := res["structuredContent"].(map[string]any); res["isError"] != true || sc["error"] != "not_found" {
		t.Fatalf("ls of a missing file = %v", res)
	}
}
