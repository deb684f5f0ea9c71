// An independent MCP client for shoal-mcp: the official TypeScript SDK's
// client lists the tools and calls shoal_exec over stdio.
//
//   npm install --prefix DIR @modelcontextprotocol/sdk@1.32.2
//   NODE_PATH=DIR/node_modules node scripts/mcp-ts-check.mjs shoal-mcp [flags...]
//
// (see docs/mcp.md, "Tests"). It exits 0 when every check holds.
import { createRequire } from "node:module";
import path from "node:path";

const base = process.env.NODE_PATH || path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(base, "noop.js"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StdioClientTransport } = await import(require.resolve("@modelcontextprotocol/sdk/client/stdio.js"));

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node scripts/mcp-ts-check.mjs SHOAL_MCP_BINARY [flags...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "shoal-ts-check", version: "1.0.0" });
await client.connect(transport);
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };

const { tools } = await client.listTools();
if (tools.length !== 13) fail(`${tools.length} tools, want 13`);
console.log(`tools (${tools.length}): ${tools.map((t) => t.name).join(" ")}`);

const res = await client.callTool({ name: "shoal_exec", arguments: { src: "[1, 2, 3].map(x => x * 14).sum()" } });
if (res.isError) fail("shoal_exec: " + JSON.stringify(res.content));
const sc = res.structuredContent;
if (!sc || sc.render !== "84" || !String(sc.ref).startsWith("out:")) fail("shoal_exec answered " + JSON.stringify(res));
console.log(`shoal_exec: ref=${sc.ref} render=${sc.render} value=${JSON.stringify(sc.value)}`);

const err = await client.callTool({ name: "shoal_exec", arguments: { src: "1 +" } });
if (!err.isError || err.structuredContent?.code !== -32001) fail("a parse error answered " + JSON.stringify(err));
console.log(`a parse error: isError, code ${err.structuredContent.code}`);

// Every tool's structuredContent must be an object: the SDK's client
// throws on anything else (shoal_journal once answered a bare array).
const journal = await client.callTool({ name: "shoal_journal", arguments: { limit: 2 } });
if (journal.isError || !Array.isArray(journal.structuredContent?.entries) || journal.structuredContent.entries.length === 0) {
  fail("shoal_journal answered " + JSON.stringify(journal).slice(0, 500));
}
console.log(`shoal_journal: ${journal.structuredContent.entries.length} entries, next_cursor ${journal.structuredContent.next_cursor}`);
for (const [name, args] of [["shoal_plan", { src: "rm nothing.txt" }], ["shoal_pty_list", {}], ["shoal_get", { ref: sc.ref }]]) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError || typeof r.structuredContent !== "object" || Array.isArray(r.structuredContent)) fail(name + " answered " + JSON.stringify(r).slice(0, 500));
  console.log(`${name}: ok`);
}

const read = await client.readResource({ uri: sc.uri });
if (!read.contents?.[0]?.text?.includes("84")) fail("reading " + sc.uri + ": " + JSON.stringify(read));
console.log(`read ${sc.uri}: ok`);
await client.close();
console.log("OK");
