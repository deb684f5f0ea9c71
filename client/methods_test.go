package client

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

func TestTypedHelpers(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)

	info, err := c.KernelInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "0.1.0" || info.Protocol != 1 || len(info.Methods) != 2 || !info.Features["tokens"] || info.Limits["max_frame"] != proto.MaxFrame {
		t.Fatalf("kernel.info = %+v", info)
	}
	if !info.Implements("exec") || info.Implements("pty.open") || info.Implements("nope") {
		t.Fatalf("Implements wrong for %+v", info.Methods)
	}

	at, err := c.Attach(ctx, AttachParams{Session: "work", Client: &ClientInfo{Kind: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if at.Session != "work" || at.Principal != "uid:1000" || at.ASTVersion != 2 || at.Caps.Opaque != "deny" || at.CWD.Display != "/w" {
		t.Fatalf("attach = %+v", at)
	}
	var sent AttachParams
	if err := json.Unmarshal(k.attachCalls()[0], &sent); err != nil || sent.Session != "work" || sent.Token != "" || sent.Client.Kind != "test" {
		t.Fatalf("attach params sent = %s", k.attachCalls()[0])
	}

	pr, err := c.Parse(ctx, "1 + 2")
	if err != nil || pr.ASTVersion != 2 || len(pr.AST) == 0 {
		t.Fatalf("parse = %+v, %v", pr, err)
	}
	_, err = c.Parse(ctx, "(")
	var rpcErr *proto.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeParseError {
		t.Fatalf("parse error = %v", err)
	}

	ex, err := c.Exec(ctx, ExecParams{Src: "abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Ref != "out:1" || ex.IsTask() || ex.IsPlan() {
		t.Fatalf("exec = %+v", ex)
	}
	v, err := ex.Decode()
	if err != nil || v != proto.Int(4) {
		t.Fatalf("exec value = %#v, %v", v, err)
	}

	vg, err := c.ValueGet(ctx, ValueGetParams{Ref: "out:1", Slice: &[2]int64{0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	lv, err := vg.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := lv.(proto.List); !ok || len(l) != 2 || l[0] != proto.Str("a") {
		t.Fatalf("value.get = %#v", lv)
	}
}

func TestExecParamsEncoding(t *testing.T) {
	tests := []struct {
		p    ExecParams
		want string
	}{
		{ExecParams{Src: "x"}, `{"src":"x"}`},
		{ExecParams{Src: "x", Mode: ModePlan, Position: PositionVal, Async: true, TimeoutMS: 5, PlanRef: "plan:1"},
			`{"src":"x","mode":"plan","position":"value","async":true,"timeout_ms":5,"plan_ref":"plan:1"}`},
		{ExecParams{Src: "x", Elide: &Elide{MaxRows: 3}}, `{"src":"x","elide":{"max_rows":3}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.p)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.p, got, err, tt.want)
		}
	}
}

func TestExecResultShapes(t *testing.T) {
	tests := []struct {
		in         string
		task, plan bool
	}{
		{`{"ref":"out:2","value":{"$":"int","v":1},"render":"1"}`, false, false},
		{`{"task":"task:7","events":"task.7","timed_out":true}`, true, false},
		{`{"plan_ref":"plan:00","effects":[],"reversibility":"reversible","verdict":"allow","approval_pending":false}`, false, true},
	}
	for _, tt := range tests {
		var r ExecResult
		if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
			t.Fatal(err)
		}
		if r.IsTask() != tt.task || r.IsPlan() != tt.plan {
			t.Errorf("%s: task=%v plan=%v", tt.in, r.IsTask(), r.IsPlan())
		}
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		in              string
		ok              bool
		dropped, latest uint64
	}{
		{`{"channel":"c","seq":3,"ts":1,"payload":{"$":"str","v":"x"}}`, true, 0, 0},
		{`{"channel":"c","seq":9,"ts":1,"payload":{"dropped":4,"latest_seq":9}}`, true, 4, 9},
		{`{"channel":"c","seq":9,"ts":1,"payload":{"dropped":4,"latest_seq":9,"x":1}}`, true, 0, 0},
		{`{"channel":"c","seq":9,"ts":1,"payload":{"dropped":"many","latest_seq":9}}`, true, 0, 0},
		{`{"seq":1}`, false, 0, 0},
		{`[1]`, false, 0, 0},
	}
	for _, tt := range tests {
		ev, ok := decodeEvent(json.RawMessage(tt.in))
		if ok != tt.ok || ev.Dropped != tt.dropped || ev.LatestSeq != tt.latest {
			t.Errorf("decodeEvent(%s) = %+v, %v", tt.in, ev, ok)
		}
	}
}

func TestErrorCodeAndData(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	err := c.Call(testCtx(t), "fail", map[string]any{"code": proto.CodeRaised, "msg": "boom"}, nil)
	if code, ok := ErrorCode(err); !ok || code != proto.CodeRaised {
		t.Fatalf("ErrorCode = %d, %v", code, ok)
	}
	var data struct{ Hint string }
	if err := ErrorData(err, &data); err != nil || data.Hint != "h" {
		t.Fatalf("ErrorData = %+v, %v", data, err)
	}
	if _, ok := ErrorCode(ErrClosed); ok {
		t.Fatal("ErrorCode found a code in ErrClosed")
	}
	if ErrorData(ErrClosed, &data) == nil {
		t.Fatal("ErrorData succeeded without an RPC error")
	}
}
