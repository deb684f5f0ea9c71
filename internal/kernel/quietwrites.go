package kernel

import (
	"net"

	"github.com/shoalgo/shoal/internal/rawio"
)

// A connection's socket is polled for room to write only once an answer
// has had to wait for it (rawio.QuietWrites). Registered as the runtime
// registers it, the socket's room came back each time the client read an
// answer, and woke the kernel's thread asleep in the poller for nothing:
// about once an `exec "1 + 1"`, most often on the other vCPU
// (docs/performance.md, "exec "1 + 1": the kernel's wake-ups"). The
// outbox's direct writes never wait (TryWrite); its goroutine's writes,
// which may, first put room to write back in the registration, for the
// rest of the connection (socketWriter.Write). quietSockets turns it off.
//
// Finding the registration reads /proc/self/fdinfo, ~20 µs, so it is done
// at a connection's quietAfter-th request (conn.dispatch), when the
// connection looks like one that makes many, not at its start.
var quietSockets = true

const quietAfter = 4

// quietWrites is nc's registration to quiet, or nil.
func quietWrites(nc *net.UnixConn) *rawio.QuietWrites {
	if !quietSockets {
		return nil
	}
	rc, err := nc.SyscallConn()
	if err != nil {
		return nil
	}
	return rawio.NewQuietWrites(rc)
}
