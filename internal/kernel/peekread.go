package kernel

import (
	"net"

	"github.com/shoalgo/shoal/internal/rawio"
)

// A connection's raw reads leave a request's bytes on the socket until
// the reader next finds nothing to read, after the request's answer
// (rawio.PeekReader): taking them off at once woke the client, which
// polls its socket for room to write, on the kernel's CPU, where it
// preempted the request it had just sent (docs/performance.md, "The
// request path: the eleventh round"). peekReads turns it off.
var peekReads = true

// newReadGuard is the reader of nc's requests: through raw, when set,
// peeking where the socket allows it.
func newReadGuard(nc *net.UnixConn, raw *rawio.RW) *readGuard {
	g := &readGuard{nc: nc, raw: raw}
	if raw != nil && peekReads {
		if pr, ok := rawio.NewPeekReader(raw); ok {
			g.peek = pr
		}
	}
	return g
}

// releasePeeked takes the bytes the reader read off the socket, once
// nobody reads: closing a Unix socket with bytes unread makes its peer's
// reads fail with ECONNRESET once it has read what the kernel sent, where
// a peer that shut down its writing and reads its last answers expects
// the end of input.
func (g *readGuard) releasePeeked() {
	if g.peek != nil {
		g.peek.Release()
	}
}
