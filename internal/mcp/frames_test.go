package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

type bufCloser struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *bufCloser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *bufCloser) Close() error { return nil }
func (b *bufCloser) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestGateInput: requests pass through in order; a line that is not
// JSON, is longer than MaxFrame, is too deep, is a batch or is not a
// JSON-RPC message is answered on the output and dropped; blank lines
// vanish; the end of input ends the reader.
func TestGateInput(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", MaxFrame) + `"}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,`,
		``,
		`   `,
		long,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":` + nested(1001) + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") // the last line has no newline
	out := &bufCloser{}
	g := newGate(&lockedWriter{w: out}, MaxInFlightBytes)
	got, err := io.ReadAll(g.input(io.NopCloser(strings.NewReader(in))))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n"
	if string(got) != want {
		t.Errorf("passed through %q, want %q", got, want)
	}
	if n := strings.Count(out.String(), `"code":-32700`); n != 4 {
		t.Errorf("%d parse errors answered, want 4: %q", n, out.String())
	}
	if !strings.Contains(out.String(), `"id":5`) {
		t.Errorf("the too-deep frame's answer lacks its id: %q", out.String())
	}
	if n := strings.Count(out.String(), `"code":-32600`); n != 1 {
		t.Errorf("%d invalid requests answered, want 1 (the batch): %q", n, out.String())
	}
}

// answer decodes a gate answer.
func answer(t *testing.T, b []byte) (id any, code float64, isToolError bool) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer %q: %v", b, err)
	}
	if e, ok := m["error"].(map[string]any); ok {
		return m["id"], e["code"].(float64), false
	}
	r := m["result"].(map[string]any)
	sc := r["structuredContent"].(map[string]any)
	return m["id"], sc["code"].(float64), r["isError"] == true
}

// TestGateScreen: each kind of frame gets its answer, with the request's
// id when one can be read, and what passes is a message the SDK decodes.
func TestGateScreen(t *testing.T) {
	tests := []struct {
		name, frame string
		code        float64 // 0: passed to the SDK
		id          any
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, nil},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, nil},
		{"response", `{"jsonrpc":"2.0","id":"s1","result":{}}`, 0, nil},
		{"error response", `{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`, 0, nil},
		{"escaped keys", `{"\u006asonrpc":"2.0","\u0069d":8,"method":"ping"}`, 0, nil},
		{"not json", `{"jsonrpc":`, -32700, nil},
		{"too deep 1001", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":` + nested(1001) + `}}`, -32700, float64(9)},
		{"too deep, id after", `{"params":` + nested(100000) + `,"jsonrpc":"2.0","id":"x","method":"ping"}`, -32700, "x"},
		{"too deep bare", nested(100000), -32700, nil},
		{"just deep enough", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"a":` + nested(MaxFrameDepth-2) + `}}`, 0, nil},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"number", `5`, -32600, nil},
		{"empty object", `{}`, -32600, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":11,"method":"ping"}`, -32600, float64(11)},
		{"version twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":12,"method":"ping"}`, -32600, float64(12)},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil},
		{"huge number id", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600, nil},
		{"long id", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", MaxIDBytes) + `","method":"ping"}`, -32600, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":13,"method":5}`, -32600, float64(13)},
		{"neither", `{"jsonrpc":"2.0"}`, -32600, nil},
		{"bad error object", `{"jsonrpc":"2.0","id":14,"error":"no"}`, -32600, nil},
		{"fractional error code", `{"jsonrpc":"2.0","id":14,"error":{"code":1.5}}`, -32600, nil},
		{"big notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"` + strings.Repeat("p", MaxNoReplyFrame) + `"}}`, -32600, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(&lockedWriter{w: &bufCloser{}}, MaxInFlightBytes)
			a := g.screen([]byte(tt.frame))
			if tt.code == 0 {
				if a != nil {
					t.Fatalf("answered %s, want passed", a)
				}
				if _, err := jsonrpc.DecodeMessage([]byte(tt.frame)); err != nil {
					t.Fatalf("passed, but the SDK cannot decode it: %v", err)
				}
				return
			}
			if a == nil {
				t.Fatalf("passed, want %v", tt.code)
			}
			id, code, _ := answer(t, a)
			if code != tt.code || id != tt.id {
				t.Fatalf("answered %s, want code %v id %v", a, tt.code, tt.id)
			}
		})
	}
}

// TestGateBudget: requests are charged while in flight; one that does not
// fit is refused with quota_exceeded (a tool error for a tool call) while
// the others stay charged; the SDK's answer releases its request's charge
// (a number id as the SDK writes it back), and a duplicated in-flight id
// is refused.
func TestGateBudget(t *testing.T) {
	out := &bufCloser{}
	g := newGate(&lockedWriter{w: out}, 1000)
	call := func(id string, pad int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"` + strings.Repeat("x", pad) + `"}}}`)
	}
	a, b := call("1", 300), call(`"b"`, 300)
	if g.screen(a) != nil || g.screen(b) != nil {
		t.Fatal("two calls within the budget refused")
	}
	if got := g.charged(); got != int64(len(a)+len(b)) {
		t.Fatalf("charged %d, want %d", got, len(a)+len(b))
	}
	refused := g.screen(call("3", 600))
	if refused == nil {
		t.Fatal("a call past the budget passed")
	}
	if id, code, isErr := answer(t, refused); id != float64(3) || code != codeQuota || !isErr {
		t.Fatalf("refusal %s", refused)
	}
	if !strings.Contains(string(refused), `"quota_exceeded"`) {
		t.Fatalf("refusal does not say quota_exceeded: %s", refused)
	}
	if a := g.screen([]byte(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"` + strings.Repeat("u", 600) + `"}}`)); a == nil {
		t.Fatal("a read past the budget passed")
	} else if _, code, isErr := answer(t, a); code != codeQuota || isErr {
		t.Fatalf("read refusal %s", a)
	}
	if d := g.screen(call(`"b"`, 1)); d == nil {
		t.Fatal("an id already in flight passed")
	}
	// The SDK's messages as the facade's transport writes them.
	w := &stdioConn{g: g}
	write := func(m jsonrpc.Message) {
		if err := w.Write(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	one, _ := jsonrpc.MakeID(1.0) // a number id, as the SDK reads it
	write(&jsonrpc.Response{ID: one, Result: json.RawMessage(`{}`)})
	if got := g.charged(); got != int64(len(b)) {
		t.Fatalf("after id 1's answer charged %d, want %d", got, len(b))
	}
	bid, _ := jsonrpc.MakeID("b")
	write(&jsonrpc.Request{ID: bid, Method: "sampling/createMessage", Params: json.RawMessage(`{}`)})
	if got := g.charged(); got != int64(len(b)) {
		t.Fatalf("a server request with the same id released a charge: %d", got)
	}
	write(&jsonrpc.Response{ID: bid, Error: &jsonrpc.Error{Code: -1, Message: "x"}})
	if got := g.charged(); got != 0 {
		t.Fatalf("after every answer charged %d, want 0", got)
	}
	if !strings.Contains(out.String(), `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n") {
		t.Fatalf("the answers were not written as lines: %q", out.String())
	}
	if g.screen(call("3", 600)) != nil {
		t.Fatal("a call that fits once the others answered refused")
	}
}
