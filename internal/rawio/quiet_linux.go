package rawio

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// QuietWrites is a socket whose registration in the runtime's poller
// leaves out room to write (EPOLLOUT) until a write has to wait for it.
//
// The runtime registers every descriptor it polls for reading and
// writing, edge-triggered. A Unix socket signals room to write each time
// its peer reads what it was sent (the skb freed, unix_write_space), so a
// server whose client reads each answer has the thread asleep in its
// poller woken for nothing once a request, a moment after the answer: on
// a VM, a halted vCPU's wake-up (docs/performance.md, "exec "1 + 1": the
// kernel's wake-ups"). A server that seldom waits to write can do without
// those wake-ups: Quiet takes EPOLLOUT out of the socket's registration
// (EPOLL_CTL_MOD on the runtime's epoll descriptor, found through
// /proc/self/fdinfo, with the runtime's own data word), and Wake puts it
// back, for good, before a write that may wait for room. A modification
// that finds the socket writable reports it at once, so a write that
// waits after Wake is woken as it would have been.
//
// Every write that may wait in the poller must call Wake first; one that
// never waits (MSG_DONTWAIT, taking what the socket takes) need not.
type QuietWrites struct {
	rc    syscall.RawConn
	mu    sync.Mutex
	quiet bool // registered without EPOLLOUT
	woken bool // EPOLLOUT back for good
}

// NewQuietWrites is rc's socket, registered as the runtime registered it.
func NewQuietWrites(rc syscall.RawConn) *QuietWrites { return &QuietWrites{rc: rc} }

// Quiet takes EPOLLOUT out of the registration unless Wake has put it
// back; it reports whether the registration is now without it.
func (q *QuietWrites) Quiet() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.woken || q.quiet {
		return q.quiet
	}
	q.quiet = q.modify(false)
	return q.quiet
}

// Wake puts EPOLLOUT back for good (a no-op when Quiet never took it
// out). It reports false when it could not, in which case a write must
// not wait in the poller.
func (q *QuietWrites) Wake() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.woken = true
	if !q.quiet {
		return true
	}
	if !q.modify(true) {
		return false
	}
	q.quiet = false
	return true
}

// Quieted reports whether the registration is without EPOLLOUT.
func (q *QuietWrites) Quieted() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.quiet
}

// modify sets or clears EPOLLOUT in the socket's registration, keeping
// the rest of it; false when the registration was not found or the
// modification failed.
func (q *QuietWrites) modify(out bool) bool {
	ok := false
	err := q.rc.Control(func(fd uintptr) {
		epfd, ev, data, found := registration(int(fd))
		if !found {
			return
		}
		if out {
			ev |= unix.EPOLLOUT
		} else {
			ev &^= unix.EPOLLOUT
		}
		e := unix.EpollEvent{Events: ev, Fd: int32(uint32(data)), Pad: int32(uint32(data >> 32))}
		ok = unix.EpollCtl(epfd, unix.EPOLL_CTL_MOD, int(fd), &e) == nil
	})
	return err == nil && ok
}

// pollerFD is the epoll descriptor the last registration was found in
// (the runtime has one), or -1.
var pollerFD atomic.Int32

func init() { pollerFD.Store(-1) }

// registration finds fd's registration in the process's epoll
// descriptors: the descriptor, its events and its data word. Only an
// edge-triggered registration for reading and writing is the runtime's.
func registration(fd int) (epfd int, events uint32, data uint64, ok bool) {
	if e := int(pollerFD.Load()); e >= 0 {
		if events, data, ok = findTarget(e, fd); ok {
			return e, events, data, true
		}
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1, 0, 0, false
	}
	for _, ent := range ents {
		e, err := strconv.Atoi(ent.Name())
		if err != nil || e == fd {
			continue
		}
		if l, err := os.Readlink("/proc/self/fd/" + ent.Name()); err != nil || l != "anon_inode:[eventpoll]" {
			continue
		}
		if events, data, ok = findTarget(e, fd); ok {
			pollerFD.Store(int32(e))
			return e, events, data, true
		}
	}
	return -1, 0, 0, false
}

// findTarget reads epfd's registration of fd from its fdinfo ("tfd: N
// events: X data: D ..."), when it is the runtime's kind.
func findTarget(epfd, fd int) (events uint32, data uint64, ok bool) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(epfd))
	if err != nil {
		return 0, 0, false
	}
	want := strconv.Itoa(fd)
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "tfd:" || f[1] != want || f[2] != "events:" || f[4] != "data:" {
			continue
		}
		ev, err1 := strconv.ParseUint(f[3], 16, 32)
		d, err2 := strconv.ParseUint(f[5], 16, 64)
		const runtimes = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET
		if err1 != nil || err2 != nil || uint32(ev)&runtimes != runtimes {
			return 0, 0, false
		}
		return uint32(ev), d, true
	}
	return 0, 0, false
}
