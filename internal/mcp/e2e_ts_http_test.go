package mcp_test

import "testing"

// TestE2ETypeScriptClientHTTP: the official TypeScript SDK's client
// (scripts/mcp-ts-check.mjs --transport=http) is refused without a valid
// token and with a wrong one, then connects over Streamable HTTP with one
// and calls every tool, the SDK validating each result against its
// outputSchema. Like TestE2ETypeScriptClient it needs node and the SDK
// where SHOAL_MCP_TS_NODE_MODULES says, and skips otherwise.
func TestE2ETypeScriptClientHTTP(t *testing.T) {
	k := startAgentKernel(t, "agent:ts")
	h := startHTTP(t, k)
	runTSCheck(t, k, []string{"SHOAL_TOKEN=" + newToken(t, k, "agent:ts")}, "http", h.url)
	h.alive(t)
}
