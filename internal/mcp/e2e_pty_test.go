package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// skipUnlessPTY skips the test only when the kernel answers that its
// pty.* methods are not implemented yet (exactly that error); any other
// answer is the test's to judge.
func skipUnlessPTY(t *testing.T, res *sdk.CallToolResult, method string) {
	t.Helper()
	if !res.IsError {
		return
	}
	var e toolErr
	structured(t, res, &e)
	if e.Code == -32601 && e.Message == method+" is not implemented by this kernel yet" {
		t.Skipf("the kernel answers %d %q: PTYs are not implemented by this kernel yet, so the PTY round trip cannot run", e.Code, e.Message)
	}
}

// TestE2EPTYRoundTrip: open a shell on a PTY, type a command, read the
// screen until its output shows, resize, list, close with an exit.
func TestE2EPTYRoundTrip(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	res := s.call(t, ctx(t), "shoal_pty_open", map[string]any{"cmd": "sh", "cols": 60, "rows": 10, "env": map[string]any{"PS1": "$ "}})
	skipUnlessPTY(t, res, "pty.open")
	if res.IsError {
		t.Fatalf("pty open: %s", text(res))
	}
	var open struct {
		PtyID string `json:"pty_id"`
		Pid   int    `json:"pid"`
	}
	structured(t, res, &open)
	if !strings.HasPrefix(open.PtyID, "pty:") || open.Pid <= 0 {
		t.Fatalf("pty open = %+v", open)
	}
	res = s.call(t, ctx(t), "shoal_pty_send", map[string]any{"pty_id": open.PtyID, "input": []any{"echo mcp-$((6*7))", map[string]any{"key": "Enter"}}})
	if res.IsError {
		t.Fatalf("pty send: %s", text(res))
	}
	var screen struct {
		PtyID  string   `json:"pty_id"`
		Screen []string `json:"screen"`
		Alive  bool     `json:"alive"`
		Cursor struct {
			Row int `json:"row"`
		} `json:"cursor"`
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res = s.call(t, ctx(t), "shoal_pty_read", map[string]any{"pty_id": open.PtyID})
		if res.IsError {
			t.Fatalf("pty read: %s", text(res))
		}
		structured(t, res, &screen)
		if strings.Contains(strings.Join(screen.Screen, "\n"), "mcp-42") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed mcp-42: %q", screen.Screen)
		}
	}
	if !screen.Alive || len(screen.Screen) == 0 || len(screen.Screen) > 10 {
		t.Errorf("screen = %+v, want at most 10 rows of a live shell", screen)
	}
	// The same screen as a resource.
	c := read(t, s, "shoal://pty/"+strings.TrimPrefix(open.PtyID, "pty:"))
	if !strings.Contains(c.Text, "mcp-42") {
		t.Errorf("pty resource = %.300s", c.Text)
	}
	if res = s.call(t, ctx(t), "shoal_pty_resize", map[string]any{"pty_id": open.PtyID, "cols": 80, "rows": 20}); res.IsError {
		t.Fatalf("pty resize: %s", text(res))
	}
	res = s.call(t, ctx(t), "shoal_pty_list", map[string]any{})
	var list struct {
		Ptys []struct {
			PtyID string `json:"pty_id"`
			Cols  int    `json:"cols"`
			Rows  int    `json:"rows"`
		} `json:"ptys"`
	}
	structured(t, res, &list)
	if len(list.Ptys) != 1 || list.Ptys[0].PtyID != open.PtyID || list.Ptys[0].Cols != 80 || list.Ptys[0].Rows != 20 {
		t.Errorf("pty list = %+v", list)
	}
	res = s.call(t, ctx(t), "shoal_pty_close", map[string]any{"pty_id": open.PtyID})
	if res.IsError {
		t.Fatalf("pty close: %s", text(res))
	}
	var closed struct {
		Exit json.RawMessage `json:"exit"`
	}
	structured(t, res, &closed)
	if len(closed.Exit) == 0 || string(closed.Exit) == "null" {
		t.Errorf("pty close = %s, want an exit", text(res))
	}
	res = s.call(t, ctx(t), "shoal_pty_read", map[string]any{"pty_id": open.PtyID})
	wantToolError(t, "read of a closed pty", res, -32022)
	// Out-of-range sizes are refused by the schema before the kernel.
	res, err := s.cs.CallTool(ctx(t), sdkCall{Name: "shoal_pty_open", Arguments: map[string]any{"cmd": "sh", "cols": 0}}.params())
	if err == nil && !res.IsError {
		t.Errorf("cols 0 accepted: %s", text(res))
	}
}
