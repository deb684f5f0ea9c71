package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ETypeScriptClient: the official TypeScript SDK's client
// (scripts/mcp-ts-check.mjs) lists the tools and calls every one of them
// over stdio against the built shoal-mcp, which autostarts its kernel; the
// SDK validates each structuredContent against the tool's outputSchema,
// so a pass means no validation error. It needs node and the SDK
// installed where SHOAL_MCP_TS_NODE_MODULES says (npm install --prefix DIR
// @modelcontextprotocol/sdk@1.32.2, then DIR/node_modules); without them
// it is skipped, saying which is missing.
func TestE2ETypeScriptClient(t *testing.T) {
	k := newBase(t)
	runTSCheck(t, k, nil, "stdio", bin("shoal-mcp"), "--socket", k.sock)
}

// runTSCheck runs scripts/mcp-ts-check.mjs with the transport named and
// its arguments (for stdio: the shoal-mcp command line; for http: the
// URL) in k's hermetic environment plus env, and fails unless every
// check held.
func runTSCheck(t *testing.T, k *kernel, env []string, transport string, args ...string) {
	t.Helper()
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
	script, err := filepath.Abs("../../scripts/mcp-ts-check.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(k, node, append([]string{script, "--transport=" + transport}, args...)...)
	cmd.Env = append(append(cmd.Env, "NODE_PATH="+mods), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
