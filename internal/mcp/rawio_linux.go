package mcp

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shoalgo/shoal/internal/rawio"
)

// Raw I/O on poller-served descriptors (issue 24). Every read and write
// that os and net make goes through the runtime's entersyscall, and the
// first one after the process was idle wakes the monitor thread (sysmon)
// from its deep sleep; it then polls every 20 µs while the process is
// busy. For the facade, idle between every call, that was a fifth of its
// CPU and a thread wake-up or more a call (docs/performance.md, "The
// facade: the eighth round"). A descriptor that is non-blocking never
// blocks in read(2) or write(2), so those calls are made here as raw
// system calls inside the poller's RawConn (internal/rawio, which the
// kernel's connections use too): one that would block (EAGAIN) parks the
// goroutine in the poller as os and net do, with the same deadlines and
// the same wake-up on Close.
//
// Only descriptors whose non-blocking mode no other process can change
// are served so: a pipe PollableStdio reopened as a description of the
// facade's own, and a socket, whose reads and writes say MSG_DONTWAIT
// themselves (a socket's description may be shared with the client).

// rawFile is an os.File served by rawio.RW.
type rawFile struct {
	f *os.File
	r rawio.RW
}

func (f *rawFile) Read(p []byte) (int, error) { return f.r.Read(p) }

// Write writes p; a pipe or socket whose reader is gone is left to
// os.File's Write, so that stdout keeps Go's rule (SIGPIPE ends the
// process).
func (f *rawFile) Write(p []byte) (int, error) {
	n, err := f.r.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		m, err := f.f.Write(p[n:])
		return n + m, err
	}
	return n, err
}
func (f *rawFile) Close() error { return f.f.Close() }

// RawStdio returns in and out as PollableStdio returned them, each
// served by raw system calls when it is a pipe of the facade's own or a
// socket, both served by the poller (polledStdio); anything else is
// returned as it is.
func RawStdio(in, out *os.File) (io.ReadCloser, io.WriteCloser) {
	var rin io.ReadCloser = in
	var rout io.WriteCloser = out
	if f := rawOf(in); f != nil {
		rin = f
	}
	if f := rawOf(out); f != nil {
		rout = f
	}
	return rin, rout
}

// rawOf is f served by rawio.RW, or nil.
func rawOf(f *os.File) *rawFile {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if rc.Control(func(d uintptr) { fd = int(d) }) != nil || !polledStdio(fd) {
		return nil
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	return &rawFile{f: f, r: rawio.RW{RC: rc, Sock: st.Mode&unix.S_IFMT == unix.S_IFSOCK}}
}

// rawConn is a Unix socket to the kernel served by rawio.RW: the runtime's
// own socket, non-blocking from its creation, is the facade's alone.
type rawConn struct {
	net.Conn
	r rawio.RW
}

func (c *rawConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *rawConn) Write(p []byte) (int, error) { return c.r.Write(p) }

// rawSocket is nc served by raw system calls when it is a Unix socket,
// else nc itself.
func rawSocket(nc net.Conn) net.Conn {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return nc
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawConn{Conn: nc, r: rawio.RW{RC: rc, Sock: true}}
}
