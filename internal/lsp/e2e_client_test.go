package lsp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// shoalBin is the shoal binary built once for these tests.
var shoalBin string

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "lsp-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "lsp:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	shoalBin = filepath.Join(dir, "shoal")
	cmd := exec.Command("go", "build", "-o", shoalBin, "github.com/shoalgo/shoal/cmd/shoal")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "lsp: building shoal:", err)
		return 1
	}
	return m.Run()
}

// client drives a running `shoal lsp` over its pipes: requests wait for
// their responses, and the notifications the server sent before a
// response are in hand when it returns (the server answers in order).
type client struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	w     *protocol.Writer
	inbox *inbox
	next  int
	mu    sync.Mutex
	diags map[string]protocol.PublishDiagnosticsParams
	notes []protocol.Message // every other notification, in order
	caps  map[string]json.RawMessage
}

// pathDir is a PATH holding one program, so that "unknown command"
// means the same on every machine.
func pathDir(t testing.TB) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mytool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startServer starts `shoal lsp ARGS` and initialises it.
func startServer(t testing.TB, args ...string) *client {
	t.Helper()
	cmd := exec.Command(shoalBin, append([]string{"lsp"}, args...)...)
	cmd.Env = []string{"PATH=" + pathDir(t), "HOME=" + t.TempDir()}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, cmd: cmd, in: in, w: protocol.NewWriter(in), inbox: newInbox(),
		diags: map[string]protocol.PublishDiagnosticsParams{}}
	// The server's output is drained all the time, so a test that writes
	// much before reading never blocks the server on a full pipe.
	go c.inbox.drain(protocol.NewReader(bufio.NewReaderSize(out, 1<<16)))
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	c.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, &init)
	c.caps = init.Capabilities
	c.notify("initialized", map[string]any{})
	return c
}

func (c *client) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.w.WriteMessage(b); err != nil {
		c.t.Fatalf("writing to shoal lsp: %v", err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// rpcError is a response's error.
type rpcError = protocol.ResponseError

// callErr sends a request and reads until its response, keeping the
// notifications that come first; it returns the response's error, if any.
func (c *client) callErr(method string, params, result any) *rpcError {
	c.t.Helper()
	c.next++
	id := c.next
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		m := c.read()
		if m.Method != "" {
			c.keep(m)
			continue
		}
		if string(m.ID) != fmt.Sprint(id) {
			if string(m.ID) == "null" && m.Error != nil {
				c.keep(m) // an error for a frame the server could not read
				continue
			}
			c.t.Fatalf("%s: response for id %s, want %d", method, m.ID, id)
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			if err := json.Unmarshal(m.Result, result); err != nil {
				c.t.Fatalf("%s: decoding %s: %v", method, m.Result, err)
			}
		}
		return nil
	}
}

// call is callErr that fails the test on an error response.
func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.callErr(method, params, result); err != nil {
		c.t.Fatalf("%s: error %d: %s", method, err.Code, err.Message)
	}
}

func (c *client) read() *protocol.Message {
	c.t.Helper()
	body, err := c.inbox.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			c.t.Fatalf("shoal lsp closed its output")
		}
		c.t.Fatalf("reading from shoal lsp: %v", err)
	}
	var m protocol.Message
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("shoal lsp wrote %q: %v", body, err)
	}
	return &m
}

// inbox queues the frames the server writes, without bound (a test's
// output is small).
type inbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	frames [][]byte
	err    error
}

func newInbox() *inbox {
	b := &inbox{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *inbox) drain(r *protocol.Reader) {
	for {
		body, err := r.ReadMessage()
		b.mu.Lock()
		if err != nil {
			b.err = err
		} else {
			b.frames = append(b.frames, body)
		}
		b.cond.Broadcast()
		b.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (b *inbox) next() ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.frames) == 0 && b.err == nil {
		b.cond.Wait()
	}
	if len(b.frames) == 0 {
		return nil, b.err
	}
	f := b.frames[0]
	b.frames = b.frames[1:]
	return f, nil
}

func (c *client) keep(m *protocol.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Method == "textDocument/publishDiagnostics" {
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.t.Fatalf("diagnostics %s: %v", m.Params, err)
		}
		c.diags[p.URI] = p
		return
	}
	c.notes = append(c.notes, *m)
}

func (c *client) open(uri, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "shoal", "version": 1, "text": text}})
}

// diagnostics are the latest diagnostics the server published for uri,
// after everything sent so far.
func (c *client) diagnostics(uri string) []protocol.Diagnostic {
	c.t.Helper()
	c.callErr("$/ping", nil, nil) // answered (method not found) after the notifications before it
	return c.diags[uri].Diagnostics
}

// stop shuts the server down as an editor does and checks it exits 0.
func (c *client) stop() {
	c.t.Helper()
	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		c.t.Fatalf("shoal lsp exit: %v", err)
	}
}

func pos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

func at(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(line, char)}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
