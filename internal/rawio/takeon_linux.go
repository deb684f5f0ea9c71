package rawio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// takeOnMax is the most owed bytes a Read takes off in the system call
// that reads on (takeOnAndRead); more are taken off by release first.
const takeOnMax = 512

// mmsghdr is the kernel's struct mmsghdr: a message header and the length
// the kernel received into it.
type mmsghdr struct {
	hdr unix.Msghdr
	n   uint32
}

// takeOnAndRead takes the owed bytes off fd and reads what follows them
// into p, in one recvmmsg of two messages: the first takes exactly the
// owed bytes into a scratch buffer, the second reads on into p, and what
// each received tells the three outcomes apart (bytes read on, none there
// yet, the end of input). A Read with bytes owed used to peek past them
// and, finding nothing (a client waiting on its answer, the common case),
// take them off in a second call before waiting: now one system call
// does both (docs/performance.md, "The request path: the thirteenth
// round"). The bytes read on are taken off too, not owed: the sender's
// room is freed now rather than at the reader's next wait, and when they
// were already there the sender is not waiting on the reader anyway.
//
// It reports n, the bytes read into p, and wait: nothing followed the
// owed bytes, so the caller waits in the poller (armed before this call,
// so bytes that come after it are announced). errno EINTR means call
// again; other errors are the read's. A Unix stream socket read with
// MSG_DONTWAIT never waits, so the second message cannot be interrupted
// after the first was taken.
func (r *PeekReader) takeOnAndRead(fd uintptr, p []byte, owed int64) (n int, wait bool, errno syscall.Errno) {
	var scratch [takeOnMax]byte
	var iov [2]unix.Iovec
	iov[0].Base, iov[1].Base = &scratch[0], &p[0]
	iov[0].SetLen(int(owed))
	iov[1].SetLen(len(p))
	var msgs [2]mmsghdr
	msgs[0].hdr.Iov, msgs[1].hdr.Iov = &iov[0], &iov[1]
	msgs[0].hdr.SetIovlen(1)
	msgs[1].hdr.SetIovlen(1)
	r1, _, errno := syscall.RawSyscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&msgs[0])), 2, unix.MSG_DONTWAIT, 0, 0)
	switch errno {
	case 0:
	case syscall.EAGAIN:
		r.owed.Store(0) // nothing there: nothing is owed
		return 0, true, 0
	default:
		return 0, false, errno
	}
	took := int64(msgs[0].n)
	if took < owed && r1 == 2 {
		// Fewer bytes than owed came off first (only a socket losing
		// them could do that): the second message's first bytes are
		// the rest of them, not new ones.
		extra := min(owed-took, int64(msgs[1].n))
		took += extra
		msgs[1].n -= uint32(extra)
		copy(p, p[extra:extra+int64(msgs[1].n)])
	}
	r.owed.Add(-min(took, owed))
	switch {
	case r1 == 1 && took > 0:
		// The second message found nothing yet (EAGAIN).
		if r.owed.Load() > 0 {
			return 0, false, syscall.EINTR // take the rest off first
		}
		return 0, true, 0
	case r1 == 2 && msgs[1].n > 0:
		return int(msgs[1].n), false, 0
	}
	// Nothing came off at all, or the second message met the end of
	// input: the read reports the end, and nothing is owed any more.
	r.owed.Store(0)
	return 0, false, 0
}
