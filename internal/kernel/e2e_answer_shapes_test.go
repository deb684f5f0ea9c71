package kernel_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/proto"
)

// TestE2EAnswersAreTheirProtoTypes: the answers of the real kernel, those
// it writes by hand (exec's value, parse, explain, journal entries) or
// from its own records (task records, events) included, decode into the
// result type proto's method table declares with no member it does not
// know, and encode back to the same JSON.
func TestE2EAnswersAreTheirProtoTypes(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}, StateDir: filepath.Join(filepath.Dir(dir), "state")})
	ctx := testCtx(t)
	c := k.attached(t, "shapes", "")
	var raw json.RawMessage
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		raw = nil
		if err := c.Call(ctx, method, params, &raw); err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
		return raw
	}
	ran := call(proto.MethodExec, map[string]any{"src": `[1, "<&>", {a: 2}]`})
	var done proto.ExecValue
	_ = json.Unmarshal(ran, &done)
	async := call(proto.MethodExec, map[string]any{"src": "sh { sleep 30 }", "async": true})
	var started proto.TaskStarted
	_ = json.Unmarshal(async, &started)
	plan := call(proto.MethodExec, map[string]any{"src": "mkdir ./x", "mode": "plan"})
	var planned proto.PlanAnswer
	_ = json.Unmarshal(plan, &planned)
	journal := call(proto.MethodJournalQuery, map[string]any{"limit": 5})
	var entries []proto.JournalEntry
	_ = json.Unmarshal(journal, &entries)
	cat := "cat"
	opened := call(proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: &cat})
	var pty proto.PTYSummary
	_ = json.Unmarshal(opened, &pty)
	call(proto.MethodEventsPublish, map[string]any{"channel": "user.s", "payload": map[string]string{"k": "<v>"}})
	parsed := call(proto.MethodParse, map[string]any{"src": "1 + 2"})
	var p proto.ParseResult
	_ = json.Unmarshal(parsed, &p)

	for _, tc := range []struct {
		method string
		params any
		answer json.RawMessage // as the type of the method's result
		as     any             // another of the method's shapes
	}{
		{proto.MethodKernelInfo, nil, nil, nil},
		{proto.MethodSessionAttach, client.AttachParams{Session: "shapes"}, nil, nil},
		{proto.MethodSessionEnv, nil, nil, nil},
		{proto.MethodSessionReef, nil, nil, nil},
		{proto.MethodParse, nil, parsed, nil},
		{proto.MethodComplete, map[string]any{"src": "(1..3).ma"}, nil, nil},
		{proto.MethodExplain, map[string]any{"src": "mkdir ./y"}, nil, nil},
		{proto.MethodExplain, map[string]any{"ast": p.AST}, nil, nil},
		{proto.MethodExec, nil, ran, &proto.ExecValue{}},
		{proto.MethodExec, nil, async, &proto.TaskStarted{}},
		{proto.MethodExec, nil, plan, &proto.PlanAnswer{}},
		{proto.MethodValueGet, map[string]any{"ref": done.Ref}, nil, &proto.ValueJSON{}},
		{proto.MethodValueGet, map[string]any{"ref": done.Ref, "format": "render"}, nil, &proto.ValueRender{}},
		{proto.MethodValueGet, map[string]any{"ref": done.Ref, "path": "[1]", "format": "raw"}, nil, &proto.ValueRaw{}},
		{proto.MethodJournalQuery, nil, journal, nil},
		{proto.MethodBlobGet, map[string]any{"hash": entries[len(entries)-1].Outputs[0].Hash}, nil, nil},
		{proto.MethodTaskList, nil, nil, nil},
		{proto.MethodTaskGet, map[string]any{"task": started.Task}, nil, nil},
		{proto.MethodTaskAwait, map[string]any{"task": started.Task, "timeout_ms": 1}, nil, nil},
		{proto.MethodPlanList, nil, nil, nil},
		{proto.MethodPlanGet, map[string]any{"plan_ref": planned.PlanRef}, nil, nil},
		{proto.MethodPTYOpen, nil, opened, nil},
		{proto.MethodPTYSend, map[string]any{"pty_id": pty.PtyID, "input": "a"}, nil, nil},
		{proto.MethodPTYRead, map[string]any{"pty_id": pty.PtyID, "scrollback": 5, "styles": true}, nil, nil},
		{proto.MethodPTYResize, map[string]any{"pty_id": pty.PtyID, "cols": 90, "rows": 20}, nil, nil},
		{proto.MethodPTYList, nil, nil, nil},
		{proto.MethodPTYClose, map[string]any{"pty_id": pty.PtyID}, nil, nil},
		{proto.MethodEventsRead, map[string]any{"channel": "user.s"}, nil, nil},
		{proto.MethodEventsSubscribe, map[string]any{"channel": "user.s"}, nil, nil},
		{proto.MethodEventsUnsubscribe, map[string]any{"channel": "user.s"}, nil, nil},
		{proto.MethodPlanApply, map[string]any{"plan_ref": planned.PlanRef}, nil, &proto.ExecValue{}},
		{proto.MethodTaskCancel, map[string]any{"task": started.Task}, nil, nil},
	} {
		answer := tc.answer
		if answer == nil {
			answer = append(json.RawMessage(nil), call(tc.method, tc.params)...)
		}
		m, _ := proto.LookupMethod(tc.method)
		for _, typ := range []any{m.Result, tc.as} {
			if typ == nil {
				continue
			}
			v := reflect.New(reflect.TypeOf(typ).Elem()).Interface()
			dec := json.NewDecoder(bytes.NewReader(answer))
			dec.DisallowUnknownFields()
			if err := dec.Decode(v); err != nil {
				t.Errorf("%s: %s does not decode into %T: %v", tc.method, answer, v, err)
				continue
			}
			if typ != m.Result || tc.as == nil {
				// The exact shape (a union omits its zero members).
				var want, got any
				enc, _ := json.Marshal(v)
				_ = json.Unmarshal(answer, &want)
				_ = json.Unmarshal(enc, &got)
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s: %s re-encodes from %T as %s", tc.method, answer, v, enc)
				}
			}
		}
	}
}
