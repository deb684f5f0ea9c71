package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipeline writes n frames built by frame on c from a goroutine (the
// kernel stops reading while its answers are unread, so a big pipeline
// cannot be written from the goroutine that will read it); the returned
// channel gets the write's error once it is done.
func pipeline(c *client, n int, frame func(i int) string) <-chan error {
	done := make(chan error, 1)
	go func() {
		var buf bytes.Buffer
		for i := 0; i < n; i++ {
			buf.WriteString(frame(i))
			buf.WriteByte('\n')
		}
		c.conn.SetWriteDeadline(time.Now().Add(2 * time.Minute))
		_, err := c.conn.Write(buf.Bytes())
		done <- err
	}()
	return done
}

// TestPipelinedPublishesKeepRequestOrder: 500 events.publish written at
// once on one connection get strictly increasing seqs in request order,
// and an events.read pipelined after them sees all of them.
func TestPipelinedPublishesKeepRequestOrder(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("order", "")
	const n = 500
	wrote := pipeline(c, n+1, func(i int) string {
		if i == n {
			return `{"jsonrpc":"2.0","id":"read","method":"events.read","params":{"channel":"user.order","limit":1024}}`
		}
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"events.publish","params":{"channel":"user.order","payload":` + strconv.Itoa(i) + `}}`
	})
	seqs := make([]uint64, n)
	var read struct {
		Events []struct {
			Seq     uint64          `json:"seq"`
			Payload json.RawMessage `json:"payload"`
		} `json:"events"`
	}
	for a := 0; a <= n; a++ {
		r := c.recv()
		if r.Error != nil {
			t.Fatalf("answer %s: %+v", r.ID, r.Error)
		}
		if string(r.ID) == `"read"` {
			if err := json.Unmarshal(r.Result, &read); err != nil {
				t.Fatal(err)
			}
			continue
		}
		i, err := strconv.Atoi(string(r.ID))
		if err != nil || i < 0 || i >= n || seqs[i] != 0 {
			t.Fatalf("unexpected answer id %s", r.ID)
		}
		var res publishResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		seqs[i] = res.Seq
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	out := 0
	for i := 1; i < n; i++ {
		if seqs[i] <= seqs[i-1] {
			out++
		}
	}
	if out != 0 || seqs[0] != 1 || seqs[n-1] != n {
		t.Errorf("%d of %d publishes got a seq out of request order (first %d, last %d)", out, n, seqs[0], seqs[n-1])
	}
	if len(read.Events) != n {
		t.Fatalf("events.read after the publishes saw %d events, want %d", len(read.Events), n)
	}
	for i, ev := range read.Events {
		if ev.Seq != uint64(i+1) || string(ev.Payload) != strconv.Itoa(i) {
			t.Fatalf("event %d: seq %d payload %s", i, ev.Seq, ev.Payload)
		}
	}
}

// TestPipelinedTaskControlKeepsOrder: task.cancel and task.get pipelined
// on one connection take effect in order: the get sees the cancel.
func TestPipelinedTaskControlKeepsOrder(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("ctl", "")
	var st taskStarted
	c.ok("exec", map[string]any{"src": "while true { }", "async": true}, &st)
	c.sendRaw(`{"jsonrpc":"2.0","id":"cancel","method":"task.cancel","params":{"task":"` + st.Task + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"get","method":"task.get","params":{"task":"` + st.Task + `"}}`)
	for range 2 {
		r := c.recv()
		if r.Error != nil {
			t.Fatalf("%s: %+v", r.ID, r.Error)
		}
		var rec struct {
			State string `json:"state"`
		}
		json.Unmarshal(r.Result, &rec)
		if rec.State == "running" {
			t.Errorf("%s answered state running after the cancel", r.ID)
		}
	}
}

// TestTenThousandPipelinedExecsAllAnswered: 10,000 exec "1 + 1" written
// before any answer is read all get their answers: the kernel queues
// answers up to its reply window and then stops reading, rather than
// disconnecting the client.
func TestTenThousandPipelinedExecsAllAnswered(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("pipe", "")
	const n = 10000
	wrote := pipeline(c, n, func(i int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"exec","params":{"src":"1 + 1"}}`
	})
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("writing %d requests before reading: %v", n, err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the kernel stopped taking requests before all %d were written", n)
	}
	seen := make([]bool, n)
	for a := 0; a < n; a++ {
		r := c.recv()
		i, err := strconv.Atoi(string(r.ID))
		if err != nil || i < 0 || i >= n || seen[i] {
			t.Fatalf("answer %d: unexpected id %s", a, r.ID)
		}
		seen[i] = true
		var res execResult
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Render != "2" {
			t.Fatalf("answer %d: %s %+v", i, r.Result, r.Error)
		}
	}
}

// connOf finds the server side of the one connection attached to
// session.
func connOf(t *testing.T, k *testKernel, session string) *conn {
	t.Helper()
	k.srv.mu.Lock()
	defer k.srv.mu.Unlock()
	for c := range k.srv.conns {
		if a := c.attachment(); a != nil && a.sess.key.name == session {
			return c
		}
	}
	t.Fatalf("no connection attached to %s", session)
	return nil
}

// bigExec is an exec request whose answer is about 6 KiB (the string's
// value and its render), so that a few hundred fill the reply window.
func bigExec(i int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"exec","params":{"src":"\"` + strings.Repeat("x", 3000) + `\""}}`
}

// TestNonReaderStallsOnlyItself: a client that writes 5,000 execs (their
// answers ~30 MiB) and never reads an answer is slowed, not served without
// bound: its queued answers stay within the reply window, its reader stops
// (its writes stall), and another connection's execs go on being
// answered.
func TestNonReaderStallsOnlyItself(t *testing.T) {
	k := startKernel(t)
	bad := k.dial(t)
	bad.attach("nonreader", "")
	const n = 5000
	wrote := pipeline(bad, n, bigExec)
	sc := connOf(t, k, "nonreader")
	// Wait until the window is full: the non-reader is held up.
	deadline := time.Now().Add(time.Minute)
	for {
		sc.win.mu.Lock()
		frames, bytes := sc.win.frames, sc.win.bytes
		sc.win.mu.Unlock()
		if frames > ReplyWindowFrames || bytes > ReplyWindowBytes {
			t.Fatalf("window holds %d frames, %d bytes: past its bound", frames, bytes)
		}
		if frames == ReplyWindowFrames || bytes+frameCost(make([]byte, 7<<10)) > ReplyWindowBytes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window never filled: %d frames, %d bytes", frames, bytes)
		}
		time.Sleep(10 * time.Millisecond)
	}
	good := k.dial(t)
	good.attach("heartbeat", "")
	for i := 0; i < 50; i++ {
		var res execResult
		good.ok("exec", map[string]any{"src": "6 * 7"}, &res)
		if res.Render != "42" {
			t.Fatalf("heartbeat exec %d: %q", i, res.Render)
		}
	}
	if q := sc.out.Queued(); q > ReplyWindowBytes+EventOutboxShare*(MaxEventPayload+1024) {
		t.Errorf("the non-reader's outbox holds %d bytes", q)
	}
	select {
	case err := <-wrote:
		t.Fatalf("the non-reader wrote all %d requests (err %v): its reader never stopped", n, err)
	default:
	}
}

// TestNonReaderClosedAfterStall: a connection whose answers wait and
// whose peer reads none of them for the outbox stall is closed, and its
// requests give back what they hold.
func TestNonReaderClosedAfterStall(t *testing.T) {
	k := startKernelWith(t, func(c *Config) { c.EventStall = 300 * time.Millisecond })
	bad := k.dial(t)
	bad.attach("stall", "")
	pipeline(bad, 5000, bigExec)
	// Read nothing for a while; then the connection must be gone.
	deadline := time.Now().Add(30 * time.Second)
	for {
		k.srv.mu.Lock()
		n := len(k.srv.conns)
		k.srv.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a connection that read nothing was never closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	bad.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var err error
	for err == nil {
		_, err = bad.r.ReadBytes('\n')
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the stalled connection is still open")
	}
	other := k.dial(t)
	other.attach("stall", "")
	var res execResult
	other.ok("exec", map[string]any{"src": "1 + 2"}, &res)
	if res.Render != "3" {
		t.Errorf("after the stall: %q", res.Render)
	}
}
