package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool declares an output schema, and every structuredContent it
// answers (a success or a tool error alike: the official TypeScript client
// validates both) is a JSON object that conforms to it. The schemas name
// the members a client can rely on and leave objects open, so that a
// member the kernel adds later does not break a client; the e2e test
// TestE2EEveryToolResultMatchesItsSchema holds each one to real answers.

// errorShape is a tool error's structuredContent (errors.go), described
// to the model once, in the server instructions, rather than in each of
// the thirteen schemas.
const errorShape = `{"type":"object","required":["code","error","message"],"properties":{
 "code":{"type":"integer"},"error":{"type":"string"},"message":{"type":"string"},"data":{"type":"object"},
 "next":{"type":"object","required":["hint"],"properties":{"hint":{"type":"string"},"plan_ref":{"type":"string"},"tool":{"type":"string"},"arguments":{"type":"object"},"grants":{"type":"array","items":{"type":"string"}}}}}}`

// valueShape is a finished run's answer (shoal_exec, shoal_apply).
const valueShape = `{"type":"object","description":"A finished run: its ref and tagged value; the result's text is the value's render.","required":["ref"],"properties":{
 "ref":{"type":"string","description":"The transcript ref, e.g. out:3."},
 "uri":{"type":"string","description":"The ref as a resource, e.g. shoal://out/3."},
 "value":{"description":"The value as tagged JSON ({\"$\": type, ...}); large values are elided, the rest readable with shoal_get."},
 "cwd":{"type":"string","description":"The session's directory after the run."},
 "task":{"type":"string","description":"The task that ran it, when it ran longer than a moment."}}}`

// taskShape is a task handed back instead of a value.
const taskShape = `{"type":"object","description":"Work still running as a task (background, or past timeout_ms).","required":["task"],"properties":{
 "task":{"type":"string","description":"The task's ref, e.g. task:7: read shoal://task/7, cancel with shoal_cancel."},
 "events":{"type":"string","description":"The task's event channel."},
 "timed_out":{"type":"boolean"}}}`

// effectsShape is a list of effects.
const effectsShape = `{"type":"array","items":{"type":"object","required":["kind"],"properties":{
 "kind":{"type":"string","description":"The effect kind, e.g. fs_read, fs_write, proc_spawn."},
 "path":{"type":"string"},"program":{"type":"string"},"name":{"type":"string"},
 "argv":{"type":"array","items":{"type":"string"}},"dynamic":{"type":"boolean"}}}}`

// planShape is a stored plan's answer (shoal_plan, shoal_exec mode plan).
const planShape = `{"type":"object","description":"A stored plan: what the source would do, and the policy's verdict. Nothing ran.","required":["plan_ref","effects","verdict","state"],"properties":{
 "plan_ref":{"type":"string","description":"Pass it to shoal_apply to run the plan."},
 "effects":` + effectsShape + `,
 "reversibility":{"type":"string","enum":["reversible","conditional","unknown","irreversible"]},
 "opaque":{"type":"boolean","description":"Some part could not be bounded statically."},
 "verdict":{"type":"string","description":"allow, approval_required or deny."},
 "reasons":{"type":"array","items":{"type":"string"}},
 "state":{"type":"string","description":"allowed, pending (an approver must approve it), approved or denied."},
 "approval_pending":{"type":"boolean"},
 "notes":{"type":"array","items":{"type":"string"}}}}`

// taskRecordShape is a task's record.
const taskRecordShape = `{"type":"object","required":["task","state"],"properties":{
 "task":{"type":"string"},"session":{"type":"string"},
 "state":{"type":"string","description":"running, completed, failed or cancelled."},
 "started_ns":{"type":"integer"},"finished_ns":{"type":["integer","null"]},
 "result_ref":{"type":["string","null"]},"error":{"type":["string","null"]},"desc":{"type":"string"}}}`

// ptyShape is a PTY's summary (pty.open, pty.resize, an entry of pty.list).
const ptyShape = `{"type":"object","required":["pty_id"],"properties":{
 "pty_id":{"type":"string"},"cmd":{"type":"string"},"events":{"type":"string"},
 "pid":{"type":"integer"},"cols":{"type":"integer"},"rows":{"type":"integer"},"alive":{"type":"boolean"}}}`

// exitShape is a PTY program's exit.
const exitShape = `{"type":["object","null"],"properties":{"status":{"type":["integer","null"]},"signal":{"type":["string","null"]}}}`

// outputs maps each tool to its success shapes; its output schema is any
// of them or a tool error.
var outputs = map[string][]string{
	"shoal_exec":  {valueShape, taskShape, planShape},
	"shoal_plan":  {planShape},
	"shoal_apply": {valueShape},
	"shoal_get": {`{"type":"object","description":"A stored value or part of it.","required":["ref"],"properties":{
 "ref":{"type":"string"},"uri":{"type":"string"},
 "value":{"description":"The selected value as tagged JSON."},
 "total":{"type":"integer"},"truncated":{"type":"boolean"}}}`},
	"shoal_journal": {`{"type":"object","required":["entries","next_cursor"],"properties":{
 "entries":{"type":"array","description":"Newest first.","items":{"type":"object","required":["id","src","ok"],"properties":{
  "id":{"type":"integer"},"session":{"type":"string"},"principal":{"type":"string"},
  "ts":{"type":"integer","description":"Start, Unix nanoseconds."},"dur_ns":{"type":["integer","null"]},
  "cwd":{"type":"string"},"src":{"type":"string"},"ok":{"type":"boolean"},"status":{"type":["integer","null"]},
  "effects":` + effectsShape + `,
  "verdict":{"type":"string"},
  "outputs":{"type":"array","items":{"type":"object","properties":{"kind":{"type":"string"},"hash":{"type":"string","description":"Read it at shoal://val/HASH."},"len":{"type":"integer"}}}},
  "ast":{"type":"object","description":"The parsed source, only with ast: true."}}}},
 "next_cursor":{"type":["integer","null"],"description":"Pass as cursor for older entries; null when there were none."}}}`},
	"shoal_cancel": {taskRecordShape},
	"shoal_cap_request": {`{"type":"object","required":["plan_ref","state"],"properties":{
 "plan_ref":{"type":"string"},"state":{"type":"string"},"approved":{"type":"boolean"},"approval_pending":{"type":"boolean"},
 "uncovered":{"type":"array","items":{"type":"string"},"description":"Effect kinds of the plan still to approve."}}}`},
	"shoal_pty_open": {ptyShape},
	"shoal_pty_send": {`{"type":"object","required":["pty_id","written"],"properties":{"pty_id":{"type":"string"},"written":{"type":"integer","description":"Bytes written."}}}`},
	"shoal_pty_read": {`{"type":"object","required":["pty_id","screen","alive"],"properties":{
 "pty_id":{"type":"string"},"cmd":{"type":"string"},"cols":{"type":"integer"},"rows":{"type":"integer"},
 "cursor":{"type":"object","properties":{"row":{"type":"integer"},"col":{"type":"integer"},"hidden":{"type":"boolean"}}},
 "screen":{"type":"array","items":{"type":"string"},"description":"The screen's rows as text."},
 "changed":{"type":"boolean"},"alive":{"type":"boolean"},"exit":` + exitShape + `,"pid":{"type":"integer"},
 "scrollback":{"type":"array","items":{"type":"string"}}}}`},
	"shoal_pty_resize": {ptyShape},
	"shoal_pty_close":  {`{"type":"object","required":["pty_id"],"properties":{"pty_id":{"type":"string"},"exit":` + exitShape + `}}`},
	"shoal_pty_list":   {`{"type":"object","required":["ptys"],"properties":{"ptys":{"type":"array","items":` + ptyShape + `}}}`},
}

// outputSchema is the tool's output schema: an object that is any of its
// success shapes or a tool error.
func (d toolDef) outputSchema() (*jsonschema.Schema, error) {
	shapes, ok := outputs[d.name]
	if !ok {
		return nil, fmt.Errorf("mcp: tool %s has no output schema", d.name)
	}
	src := `{"type":"object","anyOf":[`
	for _, s := range shapes {
		src += s + ","
	}
	src += errorShape + "]}"
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		return nil, fmt.Errorf("mcp: output schema of %s: %w", d.name, err)
	}
	return &s, nil
}
