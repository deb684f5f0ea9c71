// An independent MCP client for shoal-mcp over Streamable HTTP: the
// official TypeScript SDK's client connects with a bearer token and calls
// every tool; the SDK throws on any result it finds invalid (a
// structuredContent that is not an object, or does not match the tool's
// outputSchema).
//
//   npm install --prefix DIR @modelcontextprotocol/sdk@1.32.2
//   shoal-mcp --http 127.0.0.1:8765 &    # prints: shoal-mcp: listening URL
//   SHOAL_TOKEN=$(shoal-token create agent:ts agent) \
//     NODE_PATH=DIR/node_modules node scripts/mcp-ts-http-check.mjs http://127.0.0.1:8765/mcp
//
// (see docs/mcp.md, "Streamable HTTP"). It exits 0 when every check holds.
import { createRequire } from "node:module";
import path from "node:path";

const base = process.env.NODE_PATH || path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(base, "noop.js"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StreamableHTTPClientTransport } = await import(require.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js"));

const url = process.argv[2];
const token = process.env.SHOAL_TOKEN;
if (!url || !token) {
  console.error("usage: SHOAL_TOKEN=TOKEN node scripts/mcp-ts-http-check.mjs URL");
  process.exit(2);
}
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const connect = async (bearer) => {
  const headers = bearer ? { Authorization: "Bearer " + bearer } : {};
  const client = new Client({ name: "shoal-ts-http-check", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
};

// Without a token, or with a wrong one, the server answers 401.
for (const bad of ["", "shoal_not-a-token"]) {
  let refused = false;
  try { await (await connect(bad)).close(); } catch (e) { refused = /401|nauthorized|no bearer token|invalid token/.test(String(e)); if (!refused) fail("connect without a valid token: " + e); }
  if (!refused) fail(`connected with token ${JSON.stringify(bad)}`);
}
console.log("no token, bad token: refused (401)");

const client = await connect(token);
console.log(`connected: ${client.getServerVersion()?.name}, revision ${client.transport?.protocolVersion ?? "?"}`);
const { tools } = await client.listTools();
console.log(`tools (${tools.length}): ${tools.map((t) => t.name).join(" ")}`);

// call runs one tool; the SDK validates the result. A tool error is fine
// (a kernel refusal); a thrown error or a non-object structuredContent is not.
const called = new Set();
const call = async (name, args) => {
  let r;
  try { r = await client.callTool({ name, arguments: args }); } catch (e) { fail(`${name}: ${e}`); }
  const sc = r.structuredContent;
  if (sc !== undefined && (typeof sc !== "object" || sc === null || Array.isArray(sc))) fail(`${name}: structuredContent ${JSON.stringify(sc)}`);
  called.add(name);
  console.log(`${name}: ${r.isError ? `tool error ${sc?.code ?? ""} ${String(sc?.message ?? "").slice(0, 120)}` : "ok"}`);
  return r;
};

const exec = await call("shoal_exec", { src: "[1, 2, 3].map(x => x * 14).sum()" });
if (exec.isError || exec.structuredContent.render !== "84") fail("shoal_exec answered " + JSON.stringify(exec));
await call("shoal_get", { ref: exec.structuredContent.ref });
const plan = await call("shoal_plan", { src: '"from ts".save("ts-http.txt")' });
const planRef = plan.structuredContent?.plan_ref ?? "plan:none";
await call("shoal_cap_request", { plan_ref: planRef });
await call("shoal_apply", { plan_ref: planRef });
await call("shoal_journal", { limit: 2 });
await call("shoal_cancel", { task: "task:99999" });
await call("shoal_pty_list", {});
const pty = await call("shoal_pty_open", { cmd: "cat" });
const ptyId = (!pty.isError && pty.structuredContent?.pty_id) || "pty:99999";
await call("shoal_pty_send", { pty_id: ptyId, input: "hi\n" });
await call("shoal_pty_read", { pty_id: ptyId });
await call("shoal_pty_resize", { pty_id: ptyId, cols: 100, rows: 30 });
await call("shoal_pty_close", { pty_id: ptyId });
const missed = tools.map((t) => t.name).filter((n) => !called.has(n));
if (missed.length) fail("tools not called: " + missed.join(" "));

const read = await client.readResource({ uri: exec.structuredContent.uri });
if (!read.contents?.[0]?.text?.includes("84")) fail("reading " + exec.structuredContent.uri + ": " + JSON.stringify(read));
console.log(`read ${exec.structuredContent.uri}: ok`);
await client.close();
console.log("OK");
