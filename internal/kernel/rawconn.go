package kernel

import (
	"net"

	"github.com/shoalgo/shoal/internal/rawio"
)

// A connection's request reads and its answers' direct writes (the
// outbox's TryWrite) are raw system calls on the socket (internal/rawio):
// a read or write through net.Conn enters the runtime's syscall state, and
// the first one after the kernel was idle — every request's read, with one
// client waiting for each answer — woke the runtime's monitor thread from
// its deep sleep, which then slept and woke again (nanosleep, futex,
// context switches) on the kernel's CPU (docs/performance.md, "The request
// path: the tenth round"). The accepted socket's open file description is
// the kernel's own and non-blocking; the reads and writes say
// MSG_DONTWAIT besides. A read that finds nothing parks in the poller as
// net.Conn's does, under the same read deadline (the frame timeout,
// readGuard.stop) and close.
//
// Not under the race detector: raw system calls do not order a write
// before the read that sees its bytes, as net.Conn's reads and writes do
// for the detector, and in-process tests pass data between the kernel and
// their client through the socket (rawio.Race).
const rawConnIO = rawio.Supported && !rawio.Race

// rawSocket is nc's socket for raw reads and writes, or nil when the
// connection keeps to net.Conn.
func rawSocket(nc *net.UnixConn) *rawio.RW {
	if !rawConnIO {
		return nil
	}
	rc, err := nc.SyscallConn()
	if err != nil {
		return nil
	}
	return &rawio.RW{RC: rc, Sock: true}
}
