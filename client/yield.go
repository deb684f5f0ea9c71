package client

import (
	"runtime"

	"github.com/shoalgo/shoal/proto"
)

// The reader lets the caller it answered run first, on one processor
// (issue 24, the twelfth round). Handing a call its answer readies the
// caller's goroutine, but the reader goes on running: it reads the socket
// again, finds it empty (EAGAIN) and parks, and only then does the caller
// run. When the process has one processor (the MCP facade, oneproc.go)
// that read is a system call on the answer's critical path, before the
// caller can use its answer. So when the reader has handed over an answer
// and holds no further input, it yields once there, and the caller runs
// before that read; the read happens as before, once the caller parks.
// With several processors the reader does not yield: the runtime wakes
// another processor for the caller there, and issue 24's MCP row measures
// the facade against a raw exec through this same client, which a yield
// there would speed alike. It changes only the order in which two
// runnable goroutines run: nothing waits on it, and a reader with input
// buffered goes on dispatching it.

// hand gives a waiting call its reply and notes that the reader did so.
// ch has room for one reply and is sent to once (take and fail remove it
// from pending under the lock), so the send never blocks.
func (c *conn) hand(ch chan reply, r reply) {
	ch <- r
	c.handed = true
}

// yieldToCaller yields the processor once when the last frame the reader
// dispatched answered a call, no more input is buffered in r and the
// process runs on one processor.
func (c *conn) yieldToCaller(r *proto.Reader) {
	if !c.handed {
		return
	}
	c.handed = false
	if r.Pending() == 0 && runtime.GOMAXPROCS(0) == 1 {
		runtime.Gosched()
	}
}
