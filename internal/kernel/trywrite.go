package kernel

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shoalgo/shoal/internal/rawio"
)

// socketWriter is a connection's socket as its outbox writes to it: Write
// blocks until the peer has taken everything, TryWrite makes one
// non-blocking write of what the socket buffer takes at once, so that an
// answer can go out on the goroutine that built it (proto.TryWriter).
type socketWriter struct {
	*net.UnixConn
	raw   syscall.RawConn
	rw    *rawio.RW          // the socket for raw writes (rawconn.go); nil: syscall.Write
	quiet *rawio.QuietWrites // the poller's registration without room to write (quietwrites.go); nil: as the runtime made it
}

// newSocketWriter wraps nc; without a raw connection it is a plain writer
// and every frame goes through the outbox's goroutine. rw, when not nil,
// makes TryWrite's write a raw system call.
// quiet, when not nil, is the socket's poller registration, which Write
// has wake for room to write before it may wait.
func newSocketWriter(nc *net.UnixConn, rw *rawio.RW, quiet *rawio.QuietWrites) io.Writer {
	raw, err := nc.SyscallConn()
	if err != nil {
		return nc
	}
	return socketWriter{UnixConn: nc, raw: raw, rw: rw, quiet: quiet}
}

// errQuietWake is a write that could not have the poller watch for room
// again, and so could not wait for it.
var errQuietWake = errors.New("kernel: socket write: cannot poll for room to write")

// Write writes all of p, waiting for room as long as the peer takes to
// read: the outbox's goroutine, once TryWrite took less than a frame. The
// poller is made to watch for room first (quietwrites.go).
func (w socketWriter) Write(p []byte) (int, error) {
	if w.quiet != nil && !w.quiet.Wake() {
		return 0, errQuietWake
	}
	return w.UnixConn.Write(p)
}

// TryWrite writes what the socket takes of p without waiting.
func (w socketWriter) TryWrite(p []byte) (int, error) {
	if w.rw != nil {
		n, err := w.rw.TryWrite(p)
		if err != nil {
			return n, fmt.Errorf("try write: %w", err)
		}
		return n, nil
	}
	var n int
	var err error
	rerr := w.raw.Write(func(fd uintptr) bool {
		for {
			// syscall.Write, not unix.Write: under the race detector it
			// orders this write before the reads that see its bytes, as
			// net.Conn's writes do, which in-process tests rely on.
			n, err = syscall.Write(int(fd), p)
			if !errors.Is(err, unix.EINTR) {
				return true // one attempt: never wait for the peer
			}
		}
	})
	if rerr != nil {
		return 0, fmt.Errorf("try write: %w", rerr)
	}
	if errors.Is(err, unix.EAGAIN) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("try write: %w", err)
	}
	return max(n, 0), nil
}
