package kernel

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

func TestMalformedJSONAnswersThenCloses(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.sendRaw(`{"jsonrpc":"2.0","id":1,"method":`)
	r := c.recv()
	if r.Error == nil || r.Error.Code != proto.CodeRPCParseError {
		t.Fatalf("got %+v, want -32700", r)
	}
	if string(r.ID) != "null" {
		t.Errorf("id = %s, want null", r.ID)
	}
	c.expectClosed()
}

func TestInvalidRequestsKeepConnectionOpen(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	for _, tc := range []struct{ line, id string }{
		{`[1,2]`, "null"},
		{`"hello"`, "null"},
		{`{"jsonrpc":"1.0","id":7,"method":"kernel.info"}`, "7"},
		{`{"jsonrpc":"2.0","id":"x","method":42}`, `"x"`},
		{`{"jsonrpc":"2.0","id":8}`, "8"},
		{`{"jsonrpc":"2.0","id":9,"method":"parse","params":3}`, "9"},
	} {
		c.sendRaw(tc.line)
		r := c.recv()
		if r.Error == nil || r.Error.Code != proto.CodeInvalidRequest {
			t.Errorf("%s: got %+v, want -32600", tc.line, r)
		}
		if string(r.ID) != tc.id {
			t.Errorf("%s: id %s, want %s", tc.line, r.ID, tc.id)
		}
	}
	var info proto.KernelInfo
	c.ok("kernel.info", nil, &info)
	if info.ASTVersion != 2 {
		t.Errorf("ast_version %d", info.ASTVersion)
	}
}

func TestIDsEchoedVerbatim(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	for _, id := range []string{`"abc"`, `1.5e3`, `-0`, `{"x":[1,{"y":null}]}`, `null`, `[]`, `"\u00e9"`, `12345678901234567890`} {
		c.sendRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"kernel.info"}`)
		r := c.recv()
		if string(r.ID) != id {
			t.Errorf("id %s echoed as %s", id, r.ID)
		}
	}
}

func TestNotificationsRunWithoutReply(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.sendRaw(`{"jsonrpc":"2.0","method":"kernel.info"}`)
	c.sendRaw(`{"jsonrpc":"2.0","method":"exec","params":{"src":"let n = 41"}}`)
	c.sendRaw(`{"jsonrpc":"2.0","method":"no.such.method"}`)
	c.sendRaw(`{"jsonrpc":"2.0","method":"exec","params":{"src":"1 / 0"}}`)
	var res execResult
	c.ok("exec", map[string]any{"src": "n + 1"}, &res)
	if string(res.Value) != `{"$":"int","v":42}` {
		t.Errorf("n + 1 = %s; the notification did not run first", res.Value)
	}
	// The notifications' values were stored: the failing one is out:2.
	if res.Ref != "out:3" {
		t.Errorf("ref = %s, want out:3", res.Ref)
	}
}

func TestOversizeFrameClosesOnlyThatConnection(t *testing.T) {
	k := startKernel(t)
	good := k.dial(t)
	good.attach("", "")
	bad := k.dial(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		bad.conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
		bad.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"`))
		for i := 0; i <= proto.MaxFrame>>20; i++ {
			if _, err := bad.conn.Write(chunk); err != nil {
				return // the kernel closed us: expected
			}
		}
		bad.conn.Write([]byte("\"}}\n"))
	}()
	bad.expectClosed()
	<-done
	var res execResult
	good.ok("exec", map[string]any{"src": "2 * 21"}, &res)
	if res.Render != "42" {
		t.Errorf("render = %q", res.Render)
	}
}

func TestFrameAtLimitIsAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 16 MiB")
	}
	k := startKernel(t)
	c := k.dial(t)
	c.wait = time.Minute // decoding 16 MiB is slow under the race detector
	prefix := `{"jsonrpc":"2.0","id":1,"method":"kernel.info","params":{"pad":"`
	suffix := `"}}`
	pad := strings.Repeat("x", proto.MaxFrame-len(prefix)-len(suffix))
	go c.conn.Write([]byte(prefix + pad + suffix + "\n"))
	r := c.recv()
	if r.Error != nil {
		t.Fatalf("frame of exactly MaxFrame bytes refused: %+v", r.Error)
	}
}

// TestSlowReaderDoesNotStallOthers: a client that writes 4,000 requests
// before reading any answer slows only itself: another client is served
// meanwhile, and the slow one, once it reads, gets every answer (it is
// flow controlled, not disconnected).
func TestSlowReaderDoesNotStallOthers(t *testing.T) {
	k := startKernel(t)
	slow := k.dial(t)
	const flood = 4000
	wrote := make(chan error, 1)
	go func() {
		var buf bytes.Buffer
		for i := 0; i < flood; i++ {
			buf.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"kernel.info"}` + "\n")
		}
		slow.conn.SetWriteDeadline(time.Now().Add(time.Minute))
		_, err := slow.conn.Write(buf.Bytes())
		wrote <- err
	}()
	fast := k.dial(t)
	for i := 0; i < 50; i++ {
		var info proto.KernelInfo
		fast.ok("kernel.info", nil, &info)
	}
	seen := make([]bool, flood)
	slow.wait = 30 * time.Second
	for n := 0; n < flood; n++ {
		r := slow.recv()
		i, err := strconv.Atoi(string(r.ID))
		if err != nil || i < 0 || i >= flood || seen[i] || r.Error != nil {
			t.Fatalf("answer %d: id %s, error %+v", n, r.ID, r.Error)
		}
		seen[i] = true
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the slow client could not write its requests: %v", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	k := startKernel(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := k.dial(t)
			c.attach("", "")
			for j := 0; j < 20; j++ {
				var res execResult
				c.ok("exec", map[string]any{"src": "[1, 2, 3].len()"}, &res)
				if res.Render != "3" {
					t.Errorf("render %q", res.Render)
				}
			}
		}()
	}
	wg.Wait()
}

func TestPipelinedExecsRunInOrder(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":0,"method":"exec","params":{"src":"var x = 0"}}` + "\n")
	for i := 1; i <= 30; i++ {
		buf.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"exec","params":{"src":"x = x + 1\nx"}}` + "\n")
	}
	c.conn.Write(buf.Bytes())
	got := map[string]string{}
	for i := 0; i <= 30; i++ {
		r := c.recv()
		if r.Error != nil {
			t.Fatalf("id %s: %+v", r.ID, r.Error)
		}
		var res execResult
		json.Unmarshal(r.Result, &res)
		got[string(r.ID)] = res.Render
	}
	for i := 1; i <= 30; i++ {
		if got[itoa(i)] != itoa(i) {
			t.Errorf("exec %d saw x = %s", i, got[itoa(i)])
		}
	}
}

func itoa(i int) string { return string(mustJSONNoT(i)) }

func mustJSONNoT(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
