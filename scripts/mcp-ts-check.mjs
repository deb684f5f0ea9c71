// An independent MCP client for shoal-mcp: the official TypeScript SDK's
// client lists the tools and calls every one of them; the SDK validates
// each structuredContent against the tool's outputSchema and throws on a
// mismatch, so a run that ends "OK" saw no validation error.
//
//   npm install --prefix DIR @modelcontextprotocol/sdk@1.32.2
//   NODE_PATH=DIR/node_modules node scripts/mcp-ts-check.mjs shoal-mcp [flags...]
//   NODE_PATH=DIR/node_modules node scripts/mcp-ts-check.mjs --transport=stdio shoal-mcp [flags...]
//   shoal-mcp --http 127.0.0.1:8765 &     # Streamable HTTP; prints: shoal-mcp: listening URL
//   SHOAL_TOKEN=$(shoal-token create agent:ts agent) NODE_PATH=DIR/node_modules \
//     node scripts/mcp-ts-check.mjs --transport=http http://127.0.0.1:8765/mcp
//
// (see docs/mcp.md, "Tests"). The checks (checkTools) take a connected
// client, so another transport needs only its entry in `transports`.
import { createRequire } from "node:module";
import path from "node:path";

const base = process.env.NODE_PATH || path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(base, "noop.js"));
const sdk = (p) => import(require.resolve("@modelcontextprotocol/sdk/" + p));
const { Client } = await sdk("client/index.js");

// transports build a client transport from the arguments after the
// transport's name.
const transports = {
  stdio: async ([command, ...args]) => {
    const { StdioClientTransport } = await sdk("client/stdio.js");
    return new StdioClientTransport({ command, args, stderr: "inherit" });
  },
  // Streamable HTTP at url, with the bearer token $SHOAL_TOKEN; first,
  // without a token and with a wrong one, the server must answer 401.
  http: async ([url]) => {
    const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
    const token = process.env.SHOAL_TOKEN;
    if (!url || !token) fail("the http transport needs a URL and $SHOAL_TOKEN");
    const over = (bearer) => new StreamableHTTPClientTransport(new URL(url),
      { requestInit: { headers: bearer ? { Authorization: "Bearer " + bearer } : {} } });
    for (const bad of ["", "shoal_not-a-token"]) {
      const probe = new Client({ name: "shoal-ts-check", version: "1.0.0" });
      try {
        await probe.connect(over(bad));
        fail(`connected with token ${JSON.stringify(bad)}`);
      } catch (e) {
        if (!/401|nauthorized|no bearer token|invalid token/.test(String(e))) fail("connecting without a valid token: " + e);
      }
    }
    console.log("no token, bad token: refused (401)");
    return over(token);
  },
};

const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const short = (v) => JSON.stringify(v).slice(0, 600);

// call calls a tool; the SDK throws when the answer does not validate.
// error: the specific code wanted ("" for any); any: either answer.
async function call(client, called, name, args, { error, any } = {}) {
  let r;
  try {
    r = await client.callTool({ name, arguments: args });
  } catch (e) {
    fail(`${name} ${short(args)}: ${e.message}`);
  }
  called.add(name);
  const sc = r.structuredContent;
  if (typeof sc !== "object" || sc === null || Array.isArray(sc)) fail(`${name}: structuredContent is not an object: ${short(r)}`);
  if (any) {
    console.log(`${name}: ${r.isError ? "error " + sc.error : "ok " + short(sc).slice(0, 120)}`);
  } else if (error !== undefined) {
    if (!r.isError || (error && sc.error !== error)) fail(`${name} ${short(args)}: want error ${error}, got ${short(r)}`);
    console.log(`${name}: error ${sc.error} (${sc.code})${sc.next ? ", next: " + sc.next.hint.slice(0, 80) : ""}`);
  } else if (r.isError && error === undefined) {
    fail(`${name} ${short(args)}: ${short(r)}`);
  } else {
    console.log(`${name}: ok ${short(sc).slice(0, 120)}`);
  }
  return r;
}

// checkTools calls every tool the server lists at least once.
export async function checkTools(client) {
  const { tools } = await client.listTools();
  if (tools.length !== 13) fail(`${tools.length} tools, want 13`);
  for (const t of tools) {
    if (!t.outputSchema || t.outputSchema.type !== "object") fail(`${t.name} has no object outputSchema`);
    if (!t.annotations || typeof t.annotations.readOnlyHint !== "boolean") fail(`${t.name} has no annotations`);
  }
  console.log(`tools (${tools.length}): ${tools.map((t) => t.name).join(" ")}`);
  const called = new Set();

  const res = await call(client, called, "shoal_exec", { src: "[1, 2, 3].map(x => x * 14).sum()" });
  const sc = res.structuredContent;
  if (res.content[0]?.text !== "84" || !String(sc.ref).startsWith("out:") || sc.render !== undefined) fail("shoal_exec answered " + short(res));
  await call(client, called, "shoal_exec", { src: "1 +" }, { error: "parse_error" });
  await call(client, called, "shoal_exec", { src: "ls no-such-file" }, { error: "not_found" });
  await call(client, called, "shoal_get", { ref: sc.ref });
  await call(client, called, "shoal_get", { ref: "out:999999" }, { error: "" });

  const journal = await call(client, called, "shoal_journal", { limit: 2 });
  const entries = journal.structuredContent.entries;
  if (!Array.isArray(entries) || entries.length === 0 || "ast" in entries[0]) fail("shoal_journal answered " + short(journal));
  await call(client, called, "shoal_journal", { limit: 1, ast: true });

  const plan = await call(client, called, "shoal_plan", { src: "echo planned" });
  const ref = plan.structuredContent.plan_ref;
  await call(client, called, "shoal_exec", { src: "echo planned", mode: "plan" });
  await call(client, called, "shoal_cap_request", { plan_ref: ref }, { any: true });
  await call(client, called, "shoal_apply", { plan_ref: ref }, { any: true });
  await call(client, called, "shoal_apply", { plan_ref: "plan:gone" }, { error: "unknown_plan" });

  const bg = await call(client, called, "shoal_exec", { src: "sleep 30", background: true });
  await call(client, called, "shoal_cancel", { task: bg.structuredContent.task });
  await call(client, called, "shoal_cancel", { task: "task:999999" }, { error: "unknown_task" });

  const open = await call(client, called, "shoal_pty_open", { cmd: "cat" }, { any: true });
  if (open.isError) {
    console.log("the PTY tools are checked on their errors");
    for (const name of ["shoal_pty_send", "shoal_pty_read", "shoal_pty_resize", "shoal_pty_close"]) {
      const args = name === "shoal_pty_send" ? { pty_id: "pty:999", input: "x" } : name === "shoal_pty_resize" ? { pty_id: "pty:999", cols: 80, rows: 24 } : { pty_id: "pty:999" };
      await call(client, called, name, args, { error: "" });
    }
  } else {
    const id = open.structuredContent.pty_id;
    await call(client, called, "shoal_pty_send", { pty_id: id, input: ["hello", { key: "Enter" }] });
    await call(client, called, "shoal_pty_read", { pty_id: id, wait_ms: 2000, until_change: true });
    await call(client, called, "shoal_pty_resize", { pty_id: id, cols: 100, rows: 30 });
    await call(client, called, "shoal_pty_close", { pty_id: id });
  }
  await call(client, called, "shoal_pty_list", {});

  const read = await client.readResource({ uri: sc.uri });
  if (!read.contents?.[0]?.text?.includes("84")) fail("reading " + sc.uri + ": " + short(read));
  console.log(`read ${sc.uri}: ok`);

  // Progress carries output: the first line (a builtin's, so a principal
  // that may spawn nothing prints it too) arrives in a notification while
  // the call runs; the result is the call's own.
  const notes = [];
  const long = await client.callTool({ name: "shoal_exec", arguments: { src: "echo first; sleep 1s; echo second", position: "stmt" } },
    undefined, { onprogress: (p) => notes.push(p) });
  const carried = notes.filter((p) => p._meta && "shoal/offset" in p._meta).map((p) => p.message).join("");
  if (long.isError || !carried.startsWith("first\n")) fail("progress of a long shoal_exec carried " + short(notes) + ", result " + short(long));
  console.log(`progress: ${notes.length} notifications, output ${JSON.stringify(carried)}`);

  const missing = tools.map((t) => t.name).filter((n) => !called.has(n));
  if (missing.length) fail("not called: " + missing.join(" "));
}

let argv = process.argv.slice(2);
let kind = "stdio";
if (argv[0]?.startsWith("--transport=")) {
  kind = argv[0].slice("--transport=".length);
  argv = argv.slice(1);
}
if (!transports[kind] || argv.length === 0) {
  console.error("usage: node scripts/mcp-ts-check.mjs [--transport=stdio] SHOAL_MCP_BINARY [flags...]\n" +
    "       SHOAL_TOKEN=TOKEN node scripts/mcp-ts-check.mjs --transport=http URL");
  process.exit(2);
}
const client = new Client({ name: "shoal-ts-check", version: "1.0.0" });
await client.connect(await transports[kind](argv));
await checkTools(client);
await client.close();
console.log("OK");
