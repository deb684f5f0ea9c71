package host

import "golang.org/x/sys/unix"

// holdChildSignal blocks SIGCHLD on the calling thread, which must stay
// locked to the calling goroutine until the returned function (which
// unblocks it again) has run, and reports through that function whether
// it blocked anything.
//
// Why: a child's SIGCHLD goes to the thread that forked it when that
// thread does not block it. runDirect forks on the request's own thread
// and then waits there in poll(2) for the child's output and exit, so
// the signal that only the subreaper wants (contain's reaper, through
// os/signal) interrupted the very wait the answer was behind: a signal
// frame, the runtime's handler waking its signal thread, rt_sigreturn,
// EINTR and another poll on the critical path of every spawn. Blocked
// there, the signal goes to another of the process's threads (Linux picks
// one that does not block it) and the reaper sees it as before.
//
// Only from the fork's return: the runtime sets and restores the thread's
// mask around the fork itself, and a child must not start with SIGCHLD
// blocked (a mask passes through exec).
func holdChildSignal() (release func()) {
	if !holdChildSignalOn {
		return func() {}
	}
	var set unix.Sigset_t
	sigaddset(&set, unix.SIGCHLD)
	var old unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil || sigismember(&old, unix.SIGCHLD) {
		return func() {}
	}
	return func() { _ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil) }
}

// holdChildSignalOn turns holdChildSignal off for BenchmarkSpawnDirectAB.
var holdChildSignalOn = true

// sigaddset and sigismember are the libc functions on a kernel sigset_t
// (signal n is bit n-1, in 64-bit words).
func sigaddset(s *unix.Sigset_t, sig unix.Signal) {
	n := uint(sig) - 1
	s.Val[n/64] |= 1 << (n % 64)
}

func sigismember(s *unix.Sigset_t, sig unix.Signal) bool {
	n := uint(sig) - 1
	return s.Val[n/64]&(1<<(n%64)) != 0
}
