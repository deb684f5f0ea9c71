package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ETypeScriptClientHTTP: the official TypeScript SDK's client
// (scripts/mcp-ts-http-check.mjs) is refused without a valid token, then
// connects over Streamable HTTP with one and calls every tool, the SDK
// validating each result. Like TestE2ETypeScriptClient it needs node and
// the SDK where SHOAL_MCP_TS_NODE_MODULES says, and skips otherwise.
func TestE2ETypeScriptClientHTTP(t *testing.T) {
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
	k := startAgentKernel(t, "agent:ts")
	h := startHTTP(t, k)
	script, err := filepath.Abs("../../scripts/mcp-ts-http-check.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(k, node, script, h.url)
	cmd.Env = append(cmd.Env, "NODE_PATH="+mods, "SHOAL_TOKEN="+newToken(t, k, "agent:ts"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("the TypeScript client over HTTP: %v\n%s\nshoal-mcp:\n%s", err, out, h.errText())
	}
	if b, err := os.ReadFile(filepath.Join(k.dir, "ts-http.txt")); err != nil || string(b) != "from ts" {
		t.Errorf("the planned write: %q, %v", b, err)
	}
	h.alive(t)
	t.Logf("%s", out)
}
