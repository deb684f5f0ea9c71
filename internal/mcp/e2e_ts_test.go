package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ETypeScriptClient: the official TypeScript SDK's client
// (scripts/mcp-ts-check.mjs) lists the tools, calls shoal_exec and reads
// the value's URI against the built shoal-mcp, which autostarts its
// kernel. It needs node and the SDK installed where
// SHOAL_MCP_TS_NODE_MODULES says (npm install --prefix DIR
// @modelcontextprotocol/sdk@1.32.2, then DIR/node_modules); without them
// it is skipped, saying which is missing.
func TestE2ETypeScriptClient(t *testing.T) {
	mods := os.Getenv("SHOAL_MCP_TS_NODE_MODULES")
	if mods == "" {
		t.Skip("SHOAL_MCP_TS_NODE_MODULES is not set: install @modelcontextprotocol/sdk@1.32.2 with npm and point it at node_modules")
	}
	if _, err := os.Stat(filepath.Join(mods, "@modelcontextprotocol", "sdk")); err != nil {
		t.Skipf("no @modelcontextprotocol/sdk under %s: %v", mods, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	k := newBase(t)
	script, err := filepath.Abs("../../scripts/mcp-ts-check.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(k, node, script, bin("shoal-mcp"), "--socket", k.sock)
	cmd.Env = append(cmd.Env, "NODE_PATH="+mods)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
