package rawio

import (
	"io"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// op is one raw read or write under way: the caller's buffer in, the
// count and error out, and the poller callbacks that do it, built once
// per op. RW's Read and write and WriteFile take one from ops and give it
// back when the call returns, instead of a closure (and its captured
// count and error) allocated on every call: a request's read, its
// answer's write and the intent log's write are each one such call.
type op struct {
	p     []byte
	n     int
	errno syscall.Errno
	ferr  error // WriteFile's error
	sock  bool  // recvfrom/sendto, not read/write
	wait  bool  // a write that finds no room waits in the poller

	read, write, writeFile func(fd uintptr) bool
}

var ops = sync.Pool{New: func() any {
	o := new(op)
	o.read, o.write, o.writeFile = o.doRead, o.doWrite, o.doWriteFile
	return o
}}

func getOp(p []byte, sock, wait bool) *op {
	o := ops.Get().(*op)
	o.p, o.n, o.errno, o.ferr, o.sock, o.wait = p, 0, 0, nil, sock, wait
	return o
}

// put gives o back, keeping nothing of its caller's.
func (o *op) put() {
	o.p, o.ferr = nil, nil
	ops.Put(o)
}

// doRead is RW.Read's callback: one read into o.p; false to wait in the
// poller for bytes.
func (o *op) doRead(fd uintptr) bool {
	p := o.p
	for {
		var r1 uintptr
		if o.sock {
			r1, _, o.errno = syscall.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_DONTWAIT, 0, 0)
		} else {
			r1, _, o.errno = syscall.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		switch o.errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait in the poller
		case 0:
			o.n = int(r1)
		}
		return true
	}
}

// doWrite is RW.write's callback: all of o.p, or what the descriptor
// takes at once when !o.wait; false to wait in the poller for room.
func (o *op) doWrite(fd uintptr) bool {
	p := o.p
	for o.n < len(p) {
		var r1 uintptr
		q := p[o.n:]
		if o.sock {
			r1, _, o.errno = syscall.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&q[0])), uintptr(len(q)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		} else {
			r1, _, o.errno = syscall.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&q[0])), uintptr(len(q)))
		}
		switch o.errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if !o.wait {
				o.errno = 0
				return true // what was taken, and no more
			}
			return false // wait in the poller for room
		case 0:
			o.n += int(r1)
			continue
		}
		return true
	}
	return true
}

// doWriteFile is WriteFile's callback: all of o.p to a regular file.
func (o *op) doWriteFile(fd uintptr) bool {
	p := o.p
	for o.n < len(p) {
		q := p[o.n:]
		r1, _, e := syscall.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&q[0])), uintptr(len(q)))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			o.ferr = e
			return true
		case r1 == 0:
			o.ferr = io.ErrUnexpectedEOF // no progress, as os.File's Write reports it
			return true
		}
		o.n += int(r1)
	}
	return true
}
