package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rawMCP is shoal-mcp driven over its stdio by hand, frame by frame.
type rawMCP struct {
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
	// frameWait is how long next waits for a frame (frameWaitDefault
	// unless a test whose calls take longer sets it).
	frameWait time.Duration
}

// frameWaitDefault is how long a reader waits for the next frame.
const frameWaitDefault = 10 * time.Second

func startRaw(t *testing.T, k *kernel, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(bin("shoal-mcp"), append([]string{"--socket", k.sock, "--no-autostart"}, args...)...)
	cmd.Env, cmd.Dir = k.env(), k.dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	return &rawMCP{in: in, out: bufio.NewReader(out), cmd: cmd, frameWait: frameWaitDefault}
}

func (r *rawMCP) send(t *testing.T, frame string) {
	t.Helper()
	if _, err := io.WriteString(r.in, frame+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next reads the next frame (within r.frameWait).
func (r *rawMCP) next(t *testing.T) map[string]any {
	t.Helper()
	s := nextLine(t, r.out, r.frameWait)
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("frame %q: %v", s, err)
	}
	return m
}

// nextLine reads the next newline-ended frame from out as written,
// failing the test after wait without one.
func nextLine(t testing.TB, out *bufio.Reader, wait time.Duration) string {
	t.Helper()
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := out.ReadString('\n')
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		if l.err != nil {
			t.Fatalf("reading a frame: %v", l.err)
		}
		return l.s
	case <-time.After(wait):
		t.Fatalf("no frame within %v", wait)
		return ""
	}
}

// TestE2EMalformedJSON: a frame that is not JSON is answered -32700 and
// the facade goes on serving.
func TestE2EMalformedJSON(t *testing.T) {
	k := startKernel(t)
	r := startRaw(t, k)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	init := r.next(t)
	if init["result"] == nil {
		t.Fatalf("initialize = %v", init)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list",`)
	m := r.next(t)
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32700) {
		t.Fatalf("malformed frame answered %v, want error -32700", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	m = r.next(t)
	b, _ := json.Marshal(m)
	if m["id"] != float64(3) || !strings.Contains(string(b), `"text":"42"`) {
		t.Fatalf("call after the malformed frame = %s", b)
	}
}

// TestE2ENullArguments: a tools/call whose arguments are null is served
// as one without arguments, and the facade goes on serving.
func TestE2ENullArguments(t *testing.T) {
	k := startKernel(t)
	r := startRaw(t, k)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if init := r.next(t); init["result"] == nil {
		t.Fatalf("initialize = %v", init)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shoal_pty_list","arguments":null}}`)
	m := r.next(t)
	b, _ := json.Marshal(m)
	if m["id"] != float64(2) || m["result"] == nil || strings.Contains(string(b), `"isError":true`) {
		t.Fatalf("shoal_pty_list with null arguments = %s", b)
	}
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shoal_exec","arguments":null}}`)
	m = r.next(t)
	b, _ = json.Marshal(m)
	if m["id"] != float64(3) || !strings.Contains(string(b), `missing properties`) {
		t.Fatalf("shoal_exec with null arguments = %s", b)
	}
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	m = r.next(t)
	b, _ = json.Marshal(m)
	if m["id"] != float64(4) || !strings.Contains(string(b), `"text":"42"`) {
		t.Fatalf("call after the null arguments = %s", b)
	}
}
