package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolDef is one tool as advertised: its name, the description a model
// reads, and its input schema (JSON Schema 2020-12), written by hand so
// that the golden file shows exactly what a client sees.
type toolDef struct {
	name, desc, schema string
}

// elideSchema is the per-call value budget shared by shoal_exec and
// shoal_get.
const elideSchema = `{"type":"object","additionalProperties":false,
 "description":"Override how much of a large value is inlined; the rest stays reachable by its ref.",
 "properties":{
  "max_bytes":{"type":"integer","minimum":1,"description":"Bytes of encoded value to inline."},
  "max_rows":{"type":"integer","minimum":1,"description":"Table rows to inline."},
  "max_items":{"type":"integer","minimum":1,"description":"List items or record fields to inline."}}}`

// ptyID is the schema of a pty_id argument.
const ptyID = `{"type":"string","description":"The PTY's id as shoal_pty_open returned it, e.g. \"pty:1\"."}`

// tools lists the facade's tools in the order they are advertised.
var tools = []toolDef{
	{"shoal_exec", "Run Shoal source in the attached session and return its value. Shoal is not bash: no | pipes (chain methods, ls.where(.size > 1kb).map(x => x.name), or feed a value to a program, (cat a.txt).feed(^sort)), no $VAR (env.HOME), no 2> (a failed command's outcome has .err); see the server instructions. " +
		"The answer's text is the value rendered for reading; its structured content has `ref` (e.g. out:3, readable later with shoal_get or shoal://out/3) and `value` (a tagged JSON value, large ones elided). " +
		"position defaults to \"value\": a failing final command returns its outcome (status, stderr) instead of raising. " +
		"mode \"plan\" derives the effects without running anything. background:true returns a task at once; timeout_ms returns the still-running work as a task after that long. " +
		"A long call reports progress when you send a progress token, and cancelling the request ends the work and every process it started.",
		`{"type":"object","additionalProperties":false,"required":["src"],"properties":{
 "src":{"type":"string","description":"Shoal source to run, e.g. \"ls.where(.size > 1kb)\", \"git status\" or \"1 + 2\"."},
 "mode":{"type":"string","enum":["run","plan"],"default":"run","description":"run executes; plan stores the plan (effects, verdict) and runs nothing."},
 "position":{"type":"string","enum":["value","stmt"],"default":"value","description":"value: a final failing command is an inspectable outcome; stmt: it raises cmd_failed."},
 "background":{"type":"boolean","default":false,"description":"Start a task and return {task, events} at once."},
 "timeout_ms":{"type":"integer","minimum":1,"maximum":86400000,"description":"Wait at most this long, then return the still-running work as a task (it is not killed)."},
 "elide":` + elideSchema + `}}`},
	{"shoal_plan", "Plan Shoal source without running it: the effects it would have (files read or written, programs spawned, network), whether they can be undone, and the policy verdict. " +
		"Returns a plan_ref; apply it with shoal_apply, or ask for approval with shoal_cap_request when the verdict needs one.",
		`{"type":"object","additionalProperties":false,"required":["src"],"properties":{
 "src":{"type":"string","description":"Shoal source to plan."}}}`},
	{"shoal_apply", "Run a stored plan (from shoal_plan or shoal_exec mode plan) exactly as it was planned, once. Fails with APPROVAL_REQUIRED (-32011) until an approver has approved it, and UNKNOWN_PLAN (-32012) for a plan that is gone or not yours. Answers like shoal_exec.",
		`{"type":"object","additionalProperties":false,"required":["plan_ref"],"properties":{
 "plan_ref":{"type":"string","description":"The plan's ref, e.g. \"plan:3f2a…\"."}}}`},
	{"shoal_get", "Read a stored value, or part of it, without running anything again: a field path, an index or a slice of a list, table or string. Use it to page through a value whose inline form was elided.",
		`{"type":"object","additionalProperties":false,"required":["ref"],"properties":{
 "ref":{"type":"string","description":"A transcript ref such as \"out:3\", or a val:blake3:… ref."},
 "path":{"type":"string","description":"A selector such as .name, [0], .rows[10..20] or .out.users[0].name."},
 "slice":{"type":"array","items":{"type":"integer","minimum":0},"minItems":2,"maxItems":2,"description":"Half-open [start, end) range of the selected value."},
 "elide":` + elideSchema + `}}`},
	{"shoal_journal", "Search the durable journal of what ran: source, exit, effects, timing, newest first. All filters are optional. Returns {entries, next_cursor}; pass next_cursor as cursor for older entries (an empty entries list is the end). Entries leave out their parsed source unless ast is true.",
		`{"type":"object","additionalProperties":false,"properties":{
 "since":{"type":"integer","minimum":0,"description":"Only entries that started at or after this time (Unix nanoseconds)."},
 "until":{"type":"integer","minimum":0,"description":"Only entries that started before this time (Unix nanoseconds)."},
 "principal":{"type":"string","description":"Only this principal's entries (visible ones only)."},
 "session":{"type":"string","description":"Only this session's entries."},
 "head":{"type":"string","description":"Only entries whose command head is this, e.g. \"git\"."},
 "ok":{"type":"boolean","description":"Only entries that succeeded (true) or failed (false)."},
 "effects":{"type":"array","items":{"type":"string"},"maxItems":16,"description":"Only entries with all of these effect kinds, e.g. [\"fs_write\"]."},
 "limit":{"type":"integer","minimum":1,"maximum":1000,"description":"At most this many entries."},
 "cursor":{"type":"integer","minimum":1,"description":"Continue after this entry id (the last id of the previous page)."},
 "ast":{"type":"boolean","default":false,"description":"Also return each entry's parsed source (large: every node with its span)."}}}`},
	{"shoal_cancel", "Cancel a running task (task:N from a background or timed-out shoal_exec). Every process it started ends too, descendants included. Returns the task record; read shoal://task/N to see it settle.",
		`{"type":"object","additionalProperties":false,"required":["task"],"properties":{
 "task":{"type":"string","description":"The task's ref, e.g. \"task:7\"."}}}`},
	{"shoal_cap_request", "As an approver, approve (or deny) a stored plan that is waiting for approval, optionally for only some of its effects. Needs an approver (the kernel owner, or a principal whose policy says approve = true); a principal cannot approve its own plans unless its policy allows self approval.",
		`{"type":"object","additionalProperties":false,"required":["plan_ref"],"properties":{
 "plan_ref":{"type":"string","description":"The plan to decide on."},
 "effects":{"type":"array","items":{"type":"string"},"description":"Approve only these effect kinds."},
 "deny":{"type":"boolean","default":false,"description":"Deny the plan instead of approving it."}}}`},
	{"shoal_pty_open", "Start an interactive program (an editor, a REPL, an installer that asks questions) on a pseudo-terminal in the session's directory. Returns its pty_id; then shoal_pty_send keys and shoal_pty_read the screen. Prefer shoal_exec for programs that need no terminal.",
		`{"type":"object","additionalProperties":false,"required":["cmd"],"properties":{
 "cmd":{"type":"string","description":"Program name or path."},
 "args":{"type":"array","items":{"type":"string"},"description":"Arguments, without the program name."},
 "cols":{"type":"integer","minimum":1,"maximum":1000,"default":80,"description":"Terminal columns."},
 "rows":{"type":"integer","minimum":1,"maximum":1000,"default":24,"description":"Terminal rows."},
 "env":{"type":"object","additionalProperties":{"type":"string"},"description":"Environment variables set over the session's."}}}`},
	{"shoal_pty_send", "Type into a PTY: text verbatim, named keys ({\"key\":\"Enter\"}, Tab, Escape, Up, Ctrl-C, F1…), or raw bytes ({\"bytes\": base64}); one item or an array of them. Read the screen afterwards with shoal_pty_read.",
		`{"type":"object","additionalProperties":false,"required":["pty_id","input"],"properties":{
 "pty_id":` + ptyID + `,
 "input":{"description":"A string, an item, or an array of strings and items.","anyOf":[
  {"type":"string"},
  {"$ref":"#/$defs/item"},
  {"type":"array","items":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/item"}]}}]}},
 "$defs":{"item":{"type":"object","additionalProperties":false,"minProperties":1,"maxProperties":1,"properties":{
  "text":{"type":"string"},"key":{"type":"string"},"bytes":{"type":"string","contentEncoding":"base64"}}}}}`},
	{"shoal_pty_read", "Read a PTY's current screen: its rows as text, the cursor, whether it changed since the last read, and whether the program is still alive (with its exit once it ended). " +
		"Instead of polling, pass until_change with wait_ms to wait for the screen to change, or subscribe to shoal://pty/{id}.",
		`{"type":"object","additionalProperties":false,"required":["pty_id"],"properties":{
 "pty_id":` + ptyID + `,
 "scrollback":{"type":"integer","minimum":0,"description":"Also return up to this many lines that scrolled off the top."},
 "wait_ms":{"type":"integer","minimum":0,"description":"Wait up to this long (the kernel bounds it) before reading."},
 "until_change":{"type":"boolean","description":"With wait_ms: answer as soon as the screen changes."}}}`},
	{"shoal_pty_resize", "Resize a PTY's terminal; the program is told (SIGWINCH) and usually redraws.",
		`{"type":"object","additionalProperties":false,"required":["pty_id","cols","rows"],"properties":{
 "pty_id":` + ptyID + `,
 "cols":{"type":"integer","minimum":1,"maximum":1000},
 "rows":{"type":"integer","minimum":1,"maximum":1000}}}`},
	{"shoal_pty_close", "End a PTY's program (terminated, killed after a grace period) and free the PTY; returns its exit status. Use it also after the program exited by itself.",
		`{"type":"object","additionalProperties":false,"required":["pty_id"],"properties":{
 "pty_id":` + ptyID + `}}`},
	{"shoal_pty_list", "List this session's open PTYs: id, program, pid, size, alive. No screen contents; use shoal_pty_read for those.",
		`{"type":"object","additionalProperties":false,"properties":{}}`},
}

// schema parses a tool's input schema.
func (d toolDef) inputSchema() (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(d.schema), &s); err != nil {
		return nil, fmt.Errorf("mcp: schema of %s: %w", d.name, err)
	}
	return &s, nil
}
