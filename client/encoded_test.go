package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

// TestEncodedFrameMatches holds encodedFrame to proto.EncodeFrame's bytes
// for compact params (json.Marshal's output for odd values), and checks
// that it declines what it must leave to proto.EncodeFrame.
func TestEncodedFrameMatches(t *testing.T) {
	values := []any{
		map[string]any{"src": "[3, 1, 2].sort()", "position": "val", "timeout_ms": 250},
		map[string]any{"src": "<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\t\n", "elide": map[string]int{"lines": 3}},
		map[string]any{"src": string([]byte{0xff, 0xfe, 'a'}), "mode": "plan"},
		[]any{1, -2.5e300, "x", nil, true, false, map[string]any{}},
		"just a string", 42, nil, true,
		map[string]any{"src": strings.Repeat("é", 1000)},
	}
	methods := []string{proto.MethodExec, "a.b_c-d/e", "<html>&", "x y"}
	ids := []uint64{0, 1, 1 << 63, ^uint64(0)}
	for _, v := range values {
		params, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range methods {
			for _, id := range ids {
				want, err := proto.EncodeFrame(request{JSONRPC: proto.Version, ID: id, Method: m, Params: params})
				if err != nil {
					t.Fatal(err)
				}
				got, ok := encodedFrame(id, m, params)
				if !ok || !bytes.Equal(got, want) {
					t.Errorf("encodedFrame(%d, %q, %s) = %q, %v; want %q", id, m, params, got, ok, want)
				}
				if got, err := requestFrame(id, m, params, true); err != nil || !bytes.Equal(got, want) {
					t.Errorf("requestFrame(%d, %q, %s) = %q, %v", id, m, params, got, err)
				}
			}
		}
	}
	declined := []struct {
		method string
		params string
	}{
		{proto.MethodExec, ""},
		{proto.MethodExec, "{\n\"src\": \"x\"}"},
		{"é", `{}`},
		{`a"b`, `{}`},
		{`a\b`, `{}`},
		{"a\nb", `{}`},
		{"a\x7fb", `{}`},
		{proto.MethodExec, `{"src":"` + strings.Repeat("x", proto.MaxFrame) + `"}`},
	}
	for _, d := range declined {
		if got, ok := encodedFrame(7, d.method, []byte(d.params)); ok {
			t.Errorf("encodedFrame(%q, %.40q) = %.80q, not declined", d.method, d.params, got)
		}
		// Declined, the frame is proto.EncodeFrame's (compacted), or its
		// error.
		want, werr := proto.EncodeFrame(request{JSONRPC: proto.Version, ID: 7, Method: d.method, Params: json.RawMessage(d.params)})
		got, err := requestFrame(7, d.method, json.RawMessage(d.params), true)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			t.Errorf("requestFrame(%q, %.40q) = %.80q, %v; want %.80q, %v", d.method, d.params, got, err, want, werr)
		}
	}
}

// TestCallEncoded sends Encoded params through a connection: the kernel
// reads them as sent, and the answer comes back as for any call; an empty
// Encoded is sent as {}.
func TestCallEncoded(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)
	var got json.RawMessage
	if err := c.Call(ctx, "echo", Encoded(`{"a":1,"b":"<&>"}`), &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"a":1,"b":"<&>"}` {
		t.Fatalf("echo = %s", got)
	}
	if err := c.Call(ctx, "echo", Encoded(" "), &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != "{}" {
		t.Fatalf("empty Encoded sent as %s, want {}", got)
	}
}
