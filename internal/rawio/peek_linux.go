package rawio

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PeekReader reads a Unix stream socket without taking the bytes off it
// at once: each Read copies the bytes after those it already read
// (recvfrom with MSG_PEEK, the socket's SO_PEEK_OFF moving past them),
// and the bytes read are taken off (a plain recvfrom into a scratch
// buffer) only before the reader waits in the poller for more, or once
// PeekOwedMax of them are owed.
//
// Why: taking bytes off a Unix socket frees the sender's buffer space,
// and the kernel wakes a sender that polls for room to write (Go's
// poller registers every socket for writing too, edge-triggered) as a
// synchronous wake-up on the reader's CPU, where it usually preempts the
// reader. A client that writes a request and waits for its answer is
// woken that way by the read of its request, for nothing, and the request
// waits on the run queue while it runs (up to a third of
// BenchmarkExecPure's requests, ~15 µs each: docs/performance.md, "The request path:
// the eleventh round"). Taken off after the answer, when the reader next finds
// nothing to read, the same wake-up comes when the client is being woken
// for the answer anyway.
//
// Read and Release are for the goroutine that reads (one at a time, as for
// any io.Reader): a release beside a read could take off bytes that no
// read has seen. The bytes owed are at most PeekOwedMax plus one
// Read's length, so a peer never finds its buffer space held for longer
// than it takes the reader to reach its next wait.
type PeekReader struct {
	rw   *RW
	owed atomic.Int64 // bytes read (peeked) and not yet taken off

	// The one Read under way: its buffer in, its count and error out.
	// peek, built once, is the poller callback that fills them, so that
	// a Read allocates no closure (a request's read is on every
	// request's path). Only the reading goroutine touches them.
	buf   []byte
	n     int
	errno syscall.Errno
	peek  func(fd uintptr) bool
}

// PeekOwedMax is how many bytes read and not taken off a PeekReader lets
// pile up before a Read takes them off first.
const PeekOwedMax = 16 << 10

// NewPeekReader returns a PeekReader on rw, a socket (rw.Sock), after
// setting the socket's peek offset; ok is false, and the socket is left
// as it was, when rw is not a socket or the kernel refuses the offset
// (then read rw itself).
func NewPeekReader(rw *RW) (r *PeekReader, ok bool) {
	if rw == nil || !rw.Sock {
		return nil, false
	}
	var serr error
	if err := rw.RC.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEEK_OFF, 0)
	}); err != nil || serr != nil {
		return nil, false
	}
	r = &PeekReader{rw: rw}
	r.peek = r.peekFD
	return r, true
}

// Owed is how many bytes were read and are not yet taken off the socket.
func (r *PeekReader) Owed() int64 { return r.owed.Load() }

// Read reads into p as RW.Read does; the bytes stay on the socket, owed,
// until the reader waits or owes PeekOwedMax.
func (r *PeekReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.owed.Load() >= PeekOwedMax {
		if err := r.Release(); err != nil {
			return 0, err
		}
	}
	r.buf, r.n, r.errno = p, 0, 0
	err := r.rw.RC.Read(r.peek)
	n, errno := r.n, r.errno
	r.buf = nil // the caller's buffer is not kept
	return readResult(n, errno, err)
}

// peekFD is Read's poller callback (r.peek): one peek at fd into r.buf,
// its count in r.n and error in r.errno; false to wait in the poller.
func (r *PeekReader) peekFD(fd uintptr) bool {
	p := r.buf
	for {
		r1, _, errno := syscall.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
		r.errno = errno
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// Nothing past what was read: take that off before
			// waiting. Bytes that came meanwhile were announced to
			// the poller, which does not wait then.
			if r.errno = r.release(fd); r.errno != 0 {
				return true
			}
			return false
		case 0:
			r.n = int(r1)
			r.owed.Add(int64(r1))
			if r1 == 0 {
				// The end of input: nothing more will be read, so
				// take off what was (a socket closed with bytes
				// unread resets its peer's reads).
				r.release(fd)
			}
		}
		return true
	}
}

// Release takes the bytes read so far off the socket.
func (r *PeekReader) Release() error {
	if r.owed.Load() == 0 {
		return nil
	}
	var errno syscall.Errno
	if err := r.rw.RC.Control(func(fd uintptr) { errno = r.release(fd) }); err != nil {
		return err
	}
	if errno != 0 {
		return sysErr("read", errno)
	}
	return nil
}

// release takes the owed bytes off fd: they are the first on the socket,
// as every read since the last release peeked past them.
func (r *PeekReader) release(fd uintptr) syscall.Errno {
	var scratch [512]byte
	for {
		k := min(r.owed.Load(), int64(len(scratch)))
		if k <= 0 {
			return 0
		}
		r1, _, errno := syscall.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&scratch[0])), uintptr(k), unix.MSG_DONTWAIT, 0, 0)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			r.owed.Store(0) // nothing there: nothing is owed
			return 0
		case 0:
		default:
			return errno
		}
		if r1 == 0 {
			r.owed.Store(0) // nothing there (the socket was shut down)
			return 0
		}
		r.owed.Add(-int64(r1))
	}
}
