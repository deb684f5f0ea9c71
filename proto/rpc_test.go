package proto

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name     string
		frame    string
		code     int    // 0: success
		id       string // expected raw id; "-" means absent
		method   string
		params   string
		notified bool
	}{
		{"basic", `{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"1"}}`, 0, "1", "parse", `{"src":"1"}`, false},
		{"member order", ` {"params":[1, 2] , "method":"exec","id":"a","jsonrpc":"2.0"} `, 0, `"a"`, "exec", `[1, 2]`, false},
		{"notification", `{"jsonrpc":"2.0","method":"events.publish"}`, 0, "-", "events.publish", "", true},
		{"null id is not a notification", `{"jsonrpc":"2.0","id":null,"method":"m"}`, 0, "null", "m", "", false},
		{"object id verbatim", `{"jsonrpc":"2.0","id":{"k":[1, 2.50]},"method":"m"}`, 0, `{"k":[1, 2.50]}`, "m", "", false},
		{"escaped keys and values", `{"jsonrpc":"2\u002e0","\u0069d":3,"m\u0065thod":"a\/b"}`, 0, "3", "a/b", "", false},
		{"null params is absent", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, 0, "1", "m", "", false},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"x":"}"}}`, 0, "1", "m", "", false},

		{"malformed", `{"jsonrpc":"2.0",`, CodeRPCParseError, "-", "", "", false},
		{"empty", ``, CodeRPCParseError, "-", "", "", false},
		{"two values", `{} {}`, CodeRPCParseError, "-", "", "", false},
		{"array (batch)", `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, CodeInvalidRequest, "-", "", "", false},
		{"scalar", `42`, CodeInvalidRequest, "-", "", "", false},
		{"wrong version", `{"jsonrpc":"1.0","id":9,"method":"m"}`, CodeInvalidRequest, "9", "", "", false},
		{"version number", `{"jsonrpc":2.0,"id":9,"method":"m"}`, CodeInvalidRequest, "9", "", "", false},
		{"missing version", `{"id":9,"method":"m"}`, CodeInvalidRequest, "9", "", "", false},
		{"missing method", `{"jsonrpc":"2.0","id":"x"}`, CodeInvalidRequest, `"x"`, "", "", false},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, CodeInvalidRequest, "1", "", "", false},
		{"case-sensitive names", `{"jsonrpc":"2.0","id":1,"Method":"m"}`, CodeInvalidRequest, "1", "", "", false},
		{"params scalar", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, CodeInvalidRequest, "1", "", "", false},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, CodeInvalidRequest, "1", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, rerr := DecodeRequest([]byte(tt.frame))
			if tt.code != 0 {
				if rerr == nil || rerr.Code != tt.code {
					t.Fatalf("error = %v, want code %d", rerr, tt.code)
				}
				if tt.code == CodeRPCParseError {
					if req != nil {
						t.Fatalf("parse error returned request %+v", req)
					}
					return
				}
			} else if rerr != nil {
				t.Fatalf("unexpected error %v", rerr)
			}
			gotID := "-"
			if req.ID != nil {
				gotID = string(req.ID)
			}
			if gotID != tt.id {
				t.Fatalf("id = %s, want %s", gotID, tt.id)
			}
			if tt.code != 0 {
				return
			}
			if req.Method != tt.method || string(req.Params) != tt.params || req.IsNotification() != tt.notified || req.JSONRPC != Version {
				t.Fatalf("got %+v (params %s)", req, req.Params)
			}
		})
	}
}

func TestDecodeRequestDoesNotAlias(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`)
	req, rerr := DecodeRequest(frame)
	if rerr != nil {
		t.Fatal(rerr)
	}
	for i := range frame {
		frame[i] = ' '
	}
	if string(req.ID) != "1" || string(req.Params) != "[1]" {
		t.Fatalf("request aliases its frame: %+v", req)
	}
}

func TestResponseEncoding(t *testing.T) {
	tests := []struct {
		resp *Response
		want string
	}{
		{NewResponse(json.RawMessage(`"a"`), map[string]int{"x": 1}), `{"jsonrpc":"2.0","id":"a","result":{"x":1}}`},
		{NewResponse(json.RawMessage(`1`), nil), `{"jsonrpc":"2.0","id":1,"result":null}`},
		{NewErrorResponse(nil, NewError(CodeRPCParseError, "parse error", nil)), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{&Response{ID: json.RawMessage(`2`), Result: "ignored", Error: NewError(CodeRaised, "<boom>", map[string]string{"ref": "out:1"})},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"<boom>","data":{"ref":"out:1"}}}`},
	}
	for _, tt := range tests {
		got, err := EncodeFrame(tt.resp)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want+"\n" {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	n, _ := json.Marshal(NewNotification(MethodEvent, Event{Channel: "task.7", Seq: 3, TS: 5, Payload: Str("started")}))
	if want := `{"jsonrpc":"2.0","method":"event","params":{"channel":"task.7","seq":3,"ts":5,"payload":{"$":"str","v":"started"}}}`; string(n) != want {
		t.Errorf("notification = %s", n)
	}
}

func TestResponseDecodeRawResult(t *testing.T) {
	var raw json.RawMessage
	resp := Response{Result: &raw}
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":4,"result":{"a":[1]}}`), &resp); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"a":[1]}` || string(resp.ID) != "4" {
		t.Fatalf("raw = %s id = %s", raw, resp.ID)
	}
}

// TestErrorCodesPinned guards the numeric codes of the kernel contract.
func TestErrorCodesPinned(t *testing.T) {
	want := map[string]int{
		"RPC_PARSE_ERROR": -32700, "INVALID_REQUEST": -32600, "METHOD_NOT_FOUND": -32601,
		"INVALID_PARAMS": -32602, "INTERNAL_ERROR": -32603, "NOT_ATTACHED": -32000,
		"PARSE_ERROR": -32001, "RAISED": -32002, "UNKNOWN_REF": -32004, "BAD_PATH_OR_SLICE": -32005,
		"LEASH_DENIED": -32010, "APPROVAL_REQUIRED": -32011, "UNKNOWN_PLAN": -32012,
		"TASK_CONTROL_UNAVAILABLE": -32020, "UNKNOWN_TASK": -32021, "UNKNOWN_PTY": -32022,
		"PTY_SPAWN_FAILED": -32023, "AUTH_FAILED": -32030,
	}
	consts := []int{CodeRPCParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams,
		CodeInternalError, CodeNotAttached, CodeParseError, CodeRaised, CodeUnknownRef,
		CodeBadPathOrSlice, CodeLeashDenied, CodeApprovalRequired, CodeUnknownPlan,
		CodeTaskControlUnavailable, CodeUnknownTask, CodeUnknownPTY, CodePTYSpawnFailed, CodeAuthFailed}
	if len(consts) != len(want) || len(codeNames) != len(want) {
		t.Fatalf("%d constants, %d names, want %d", len(consts), len(codeNames), len(want))
	}
	for _, c := range consts {
		name := CodeName(c)
		if want[name] != c {
			t.Errorf("code %d is named %q; contract says %q is %d", c, name, name, want[name])
		}
	}
}

func TestAllowedBeforeAttach(t *testing.T) {
	for _, m := range PreAttachMethods() {
		if !AllowedBeforeAttach(m) {
			t.Errorf("%s should be allowed before attach", m)
		}
	}
	for _, m := range []string{MethodCapRequest, MethodJournalQuery, MethodExec, "nope"} {
		if AllowedBeforeAttach(m) {
			t.Errorf("%s must require attach", m)
		}
	}
}

// TestDecodeRequestDeep checks that a request nested past MaxFrameDepth is
// refused as an invalid request, with its id when it has one, whether or
// not it is deeper than encoding/json's own limit, and that malformed deep
// JSON is still a parse error.
func TestDecodeRequestDeep(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	deepObj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name  string
		frame string
		code  int
		id    string // "-": absent
	}{
		{"at the bound", `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + deep(MaxFrameDepth-2) + `]}`, 0, "1"},
		{"past the bound", `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + deep(MaxFrameDepth) + `]}`, CodeInvalidRequest, "1"},
		{"100k deep params", `{"jsonrpc":"2.0","id":"x","method":"exec","params":{"src":` + deep(100000) + `}}`, CodeInvalidRequest, `"x"`},
		{"100k deep objects", `{"id":7,"jsonrpc":"2.0","method":"exec","params":` + deepObj(100000) + `}`, CodeInvalidRequest, "7"},
		{"deep id is dropped", `{"jsonrpc":"2.0","id":` + deep(100000) + `,"method":"m"}`, CodeInvalidRequest, "-"},
		{"deep before the id", `{"x":` + deep(100000) + `,"jsonrpc":"2.0","id":3,"method":"m"}`, CodeInvalidRequest, "3"},
		{"deep array frame", deep(100000), CodeInvalidRequest, "-"},
		{"deep and malformed", `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat("[", 100000) + `]}`, CodeRPCParseError, "-"},
		{"deep and mismatched", `{"id":1,"p":` + strings.Repeat("[", 50000) + strings.Repeat("}", 50000) + `}`, CodeRPCParseError, "-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, rerr := DecodeRequest([]byte(tc.frame))
			switch {
			case tc.code == 0 && rerr != nil:
				t.Fatalf("error %v", rerr)
			case tc.code != 0 && (rerr == nil || rerr.Code != tc.code):
				t.Fatalf("got %v, want code %d", rerr, tc.code)
			}
			if tc.code == CodeRPCParseError {
				return
			}
			got := "-"
			if req.ID != nil {
				got = string(req.ID)
			}
			if got != tc.id {
				t.Fatalf("id %s, want %s", got, tc.id)
			}
		})
	}
}
