package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// TestResourceCall: each URI maps to one kernel call with its params;
// bad ones are refused with a reason, unknown ones are not found.
func TestResourceCall(t *testing.T) {
	cases := []struct {
		uri, method, params, err string
	}{
		{"shoal://out/3", "value.get", `{"ref":"out:3"}`, ""},
		{"shoal://out/3?path=.rows[0].name&slice=2..5&format=render", "value.get", `{"format":"render","path":".rows[0].name","ref":"out:3","slice":[2,5]}`, ""},
		{"shoal://out/3?path=%5B0%5D", "value.get", `{"path":"[0]","ref":"out:3"}`, ""},
		{"shoal://out/3?elide=max_items:5,max_bytes:100", "value.get", `{"elide":{"max_bytes":100,"max_items":5},"ref":"out:3"}`, ""},
		{"shoal://out/3?elide=max_items:0", "", "", "elide must be"},
		{"shoal://out/3?elide=max_nope:3", "", "", "unknown budget"},
		{"shoal://out/3?slice=5", "", "", "slice must be"},
		{"shoal://out/x", "", "", "transcript number"},
		{"shoal://val/blake3:abcd", "blob.get", `{"hash":"blake3:abcd"}`, ""},
		{"shoal://val/val:blake3:abcd", "blob.get", `{"hash":"blake3:abcd"}`, ""},
		{"shoal://task/7", "task.get", `{"task":"task:7"}`, ""},
		{"shoal://task/task:7", "task.get", `{"task":"task:7"}`, ""},
		{"shoal://plan/ab12", "plan.get", `{"plan_ref":"plan:ab12"}`, ""},
		{"shoal://pty/2", "pty.read", `{"pty_id":"pty:2"}`, ""},
		{"shoal://pty", "pty.list", `{}`, ""},
		{"shoal://tasks", "task.list", `{}`, ""},
		{"shoal://plans", "plan.list", `{}`, ""},
		{"shoal://session/env", "session.env", `{}`, ""},
		{"shoal://session/reef", "session.reef", `{}`, ""},
		{"shoal://session/cwd", "cwd", `null`, ""},
		{"shoal://events/user.build?since=4&limit=10", "events.read", `{"channel":"user.build","limit":10,"since":4}`, ""},
		{"shoal://events/user.build?since=-1", "", "", "non-negative"},
		{"shoal://journal", "journal.query", `{"limit":20}`, ""},
		{"shoal://journal?ok=false&head=git&limit=5&since=10", "journal.query", `{"head":"git","limit":5,"ok":false,"since":10}`, ""},
		{"shoal://journal?ok=maybe", "", "", "ok must be"},
		{"shoal://nowhere", "", "", "not found"},
		{"file:///etc/passwd", "", "", "not found"},
	}
	for _, c := range cases {
		m, p, err := resourceCall(c.uri)
		if c.err != "" {
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.err)) {
				t.Errorf("%s: err %v, want %q", c.uri, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.uri, err)
			continue
		}
		b, _ := json.Marshal(p)
		if m != c.method || string(b) != c.params {
			t.Errorf("%s = %s %s, want %s %s", c.uri, m, b, c.method, c.params)
		}
	}
}

// TestChannelOf: the subscribable resources and their kernel channels.
func TestChannelOf(t *testing.T) {
	for uri, want := range map[string]string{
		"shoal://journal":             "journal",
		"shoal://events/user.x":       "user.x",
		"shoal://events/approval":     "approval",
		"shoal://task/9":              "task.9",
		"shoal://task/task:9":         "task.9",
		"shoal://pty/3":               "pty.3",
		"shoal://session/env":         "",
		"shoal://out/1":               "",
		"shoal://events/":             "",
		"http://example.com/journal":  "",
		"shoal://journal?limit=5":     "journal",
		"shoal://events/user.x?since": "user.x",
	} {
		if got := channelOf(uri); got != want {
			t.Errorf("channelOf(%s) = %q, want %q", uri, got, want)
		}
	}
}

// TestCapText: text past MaxText is cut at a line, says how much was
// left out and where the whole is; shorter text is untouched.
func TestCapText(t *testing.T) {
	if got := capText("short", "shoal://out/1"); got != "short" {
		t.Fatalf("capText(short) = %q", got)
	}
	long := strings.Repeat("0123456789abcdef\n", 10000) // 170,000 bytes
	got := capText(long, "shoal://out/4")
	if len(got) > MaxText {
		t.Fatalf("capped text is %d bytes, over %d", len(got), MaxText)
	}
	if !strings.Contains(got, "more lines") || !strings.HasSuffix(got, "fetch via shoal://out/4)") {
		t.Fatalf("capped text ends %q", got[len(got)-80:])
	}
	head := got[:strings.Index(got, "\n…(")]
	if !strings.HasPrefix(long, head) || !strings.HasSuffix(head, "abcdef") {
		t.Fatalf("capped text does not keep whole leading lines: ends %q", head[len(head)-20:])
	}
	// No newline at all: cut at a character, still under MaxText.
	if got := capText("x"+strings.Repeat("é", MaxText), ""); len(got) > MaxText || !utf8.ValidString(got) {
		t.Fatalf("capped text of two-byte characters: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if got := capText(strings.Repeat("x", 3*MaxText), ""); len(got) > MaxText || !strings.Contains(got, "more bytes") {
		t.Fatalf("capped one-line text: %d bytes", len(got))
	}
}

// TestToolErrorShape: a kernel error becomes isError with {code, error,
// message, data}; another error is isError with code -32603 and a
// specific error code too.
func TestToolErrorShape(t *testing.T) {
	res, err := toolError(&rpcErr{code: -32011, msg: "approval required", data: map[string]any{"verdict": "approval_required"}})
	if err != nil || !res.IsError {
		t.Fatalf("toolError = %+v, %v", res, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if string(b) != `{"code":-32011,"error":"approval_required","message":"approval required","data":{"verdict":"approval_required"}}` {
		t.Errorf("structuredContent = %s", b)
	}
	res, _ = toolError(fmt.Errorf("exec: %w", client.ErrClosed))
	b, _ = json.Marshal(res.StructuredContent)
	if !res.IsError || string(b) != `{"code":-32603,"error":"kernel_unreachable","message":"exec: client: connection closed"}` {
		t.Errorf("a lost connection = %+v %s", res, b)
	}
	res, _ = toolError(errPlain("something else"))
	b, _ = json.Marshal(res.StructuredContent)
	if !res.IsError || string(b) != `{"code":-32603,"error":"internal_error","message":"something else"}` {
		t.Errorf("another error = %+v %s", res, b)
	}
}

type errPlain string

func (e errPlain) Error() string { return string(e) }

// rpcErr builds a wrapped *proto.RPCError as the client returns it.
type rpcErr struct {
	code int
	msg  string
	data any
}

func (e *rpcErr) Error() string { return "client: call: " + e.msg }
func (e *rpcErr) Unwrap() error { return proto.NewError(e.code, e.msg, e.data) }
