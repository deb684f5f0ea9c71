package contain

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// holdChildSignal blocks SIGCHLD on the calling thread, which must be
// locked to its goroutine, and returns what puts the thread's mask back.
//
// The owner of a child waits for it on its own locked thread (RunProcess).
// SIGCHLD is sent to the process, and the kernel delivers it to a thread
// that does not block it, preferring one that is running: at the child's
// exit that is the owner's thread, just woken from its wait, whose return
// the runtime's signal handler then delays, and the thread the handler
// wakes (os/signal's, for the subreaper) mostly preempts it on its CPU.
// Blocked here, the signal goes to another thread of the process, which
// wakes on a CPU of its own when one is idle, and the owner goes straight
// on to reap its child and answer (docs/performance.md, "Owner spawn:
// the seventeenth round"). Nothing is lost: the signal is the process's,
// pending until some thread takes it.
func holdChildSignal() (restore func()) {
	var set, old unix.Sigset_t
	sigaddset(&set, unix.SIGCHLD)
	if unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old) != nil {
		return func() {}
	}
	return func() { _ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) }
}

// sigaddset adds sig to set.
func sigaddset(set *unix.Sigset_t, sig unix.Signal) {
	const word = uint(unsafe.Sizeof(set.Val[0]) * 8)
	bit := uint(sig - 1)
	set.Val[bit/word] |= 1 << (bit % word)
}
