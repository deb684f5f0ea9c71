package rawio

import (
	"io"
	"os"
	"syscall"
)

// Supported reports whether raw I/O is available: it is on Linux.
const Supported = true

// RW reads and writes a poller-served descriptor with raw system calls.
// RC is the descriptor's RawConn; Sock says it is a socket (recvfrom and
// sendto with MSG_DONTWAIT, and MSG_NOSIGNAL on writes), else a pipe or
// other descriptor whose description is the caller's own and
// non-blocking (read and write).
type RW struct {
	RC   syscall.RawConn
	Sock bool
}

// sysErr names a system call's error as os and net would.
func sysErr(op string, errno syscall.Errno) error {
	return &os.SyscallError{Syscall: op, Err: errno}
}

// Read reads into p as an os.File or net.Conn would: it waits in the
// poller while nothing is there (subject to the descriptor's read
// deadline and Close), and reports io.EOF at end of input.
func (r *RW) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	o := getOp(p, r.Sock, true)
	err := r.RC.Read(o.read)
	n, errno := o.n, o.errno
	o.put()
	return readResult(n, errno, err)
}

// readResult is a raw read's answer as an io.Reader gives it: the poller's
// error (a deadline, a close), else the system call's, else io.EOF for no
// bytes, else n.
func readResult(n int, errno syscall.Errno, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, sysErr("read", errno)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p as an os.File or net.Conn would: it waits in the
// poller while the descriptor has no room (subject to its write deadline
// and Close).
func (r *RW) Write(p []byte) (int, error) {
	return r.write(p, true)
}

// TryWrite writes what the descriptor takes of p at once, possibly
// nothing (0, nil), and never waits.
func (r *RW) TryWrite(p []byte) (int, error) {
	return r.write(p, false)
}

func (r *RW) write(p []byte, wait bool) (int, error) {
	o := getOp(p, r.Sock, wait)
	err := r.RC.Write(o.write)
	n, errno := o.n, o.errno
	o.put()
	if err != nil {
		return n, err
	}
	if errno != 0 {
		return n, sysErr("write", errno)
	}
	return n, nil
}

// WriteFile writes all of p to f, a regular file, as f.Write would, but
// as raw system calls: a regular file is never waited for in the poller,
// so f.Write enters the runtime's syscall state for every write (and
// wakes the monitor thread when the process was idle). The cost is the
// other side of that: while write(2) runs, the goroutine keeps its
// processor, which the monitor thread cannot hand to other goroutines and
// a stop-the-world waits for. Use it only for writes that go to the page
// cache and no further (no O_SYNC, no O_DIRECT), whose time is that of a
// copy; a write that the kernel throttles (dirty pages over their limit)
// holds its processor for as long.
func WriteFile(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return f.Write(p)
	}
	o := getOp(p, false, true)
	err = rc.Write(o.writeFile)
	n, werr := o.n, o.ferr
	o.put()
	if err != nil {
		// The file itself refused (closed): f.Write names that as os
		// does.
		m, err := f.Write(p[n:])
		return n + m, err
	}
	if werr != nil {
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: werr}
	}
	return n, nil
}
