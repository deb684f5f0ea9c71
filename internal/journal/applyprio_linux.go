package journal

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// backgroundThread gives the calling goroutine an OS thread of its own
// (runtime.LockOSThread, never undone: the thread ends with the
// goroutine) and lowers that thread's scheduling priority to
// ApplierNice. Linux keeps a nice value per thread, so the kernel's other
// threads, the processes it starts and the threads the Go runtime
// creates later keep theirs: the runtime never clones a new thread from
// a locked one (its template thread does), and nothing but the applier's
// SQLite writes runs on this one. The process's main thread is left as
// it is: it cannot end with the goroutine (the runtime parks it for
// good), and its nice value is the one ps shows for the process. It
// returns the thread's id.
func backgroundThread() int {
	runtime.LockOSThread()
	tid := unix.Gettid()
	if tid == unix.Getpid() {
		return tid
	}
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, ApplierNice) // best effort: a failure leaves the thread as it was
	return tid
}

// threadID is the calling thread's id.
func threadID() int { return unix.Gettid() }
