//go:build linux

package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Run confines an OS thread of its own with c, calls fn on it, and
// returns once fn has returned (nil), or without calling fn when the
// thread could not be confined (the error). fn runs on the confined
// thread throughout, and so does every process it forks: a child starts
// with its forking thread's capabilities, no_new_privs, seccomp filter
// and Landlock domain. Nothing else ever runs on that thread, and it ends
// when fn returns. Whatever fn must open by path it opens before Run:
// the thread cannot open what c does not grant.
//
// Why the rest of the process stays unconfined (Go 1.26's runtime,
// src/runtime/proc.go):
//
//   - The goroutine is locked to its thread (runtime.LockOSThread) and
//     never unlocked, so no other goroutine runs there, and when it
//     returns gdestroy sees it locked and sends the M to mexit instead of
//     back to the pool ("The goroutine may have locked this thread
//     because it put it in an unusual kernel state. Kill it rather than
//     returning it to the thread pool."): the thread exits.
//   - Threads inherit their creator's credentials, filters and domain,
//     but the runtime never creates one from a confined thread: newm,
//     called on an M with lockedExt != 0 (as ours is, from LockOSThread
//     until the thread is gone, mexit's own handoffp included), queues
//     the new M for the template thread ("We're on a locked M ... We
//     don't want to clone that into another thread. Instead, ask a
//     known-good thread to create the thread for us."), which
//     LockOSThread starts, if it is not running yet, before it locks
//     ("Start it now while we're in a known-good state").
//   - The main thread is the exception to the first point: mexit wedges
//     it rather than let it exit ("This is the main thread. Just wedge
//     it."), so it would live on confined. A goroutine that finds itself
//     locked to the main thread therefore confines nothing: it holds that
//     thread while it starts another goroutine, which cannot land there,
//     and gives the main thread back once the other has locked its own.
//
// A confined thread does not act for the rest of the process: the
// program must not change credentials process-wide (syscall.Setuid and
// the like run on every thread through AllThreadsSyscall, which a
// thread without capabilities would fail) while a confined thread
// lives; this project never does.
func (c *Confinement) Run(fn func()) error {
	res := make(chan error, 1)
	go c.thread(fn, res, nil)
	return <-res
}

// thread is Run's goroutine. locked, when not nil, is closed once the
// goroutine is locked to its thread (for a parent holding the main
// thread).
func (c *Confinement) thread(fn func(), res chan<- error, locked chan<- struct{}) {
	runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
	if locked != nil {
		close(locked)
	}
	if unix.Gettid() == unix.Getpid() {
		next := make(chan struct{})
		go c.thread(fn, res, next)
		<-next
		runtime.UnlockOSThread()
		return
	}
	if err := c.c.restrict(); err != nil {
		res <- err
		return // the thread, confined in part or not at all, ends here
	}
	fn()
	res <- nil
}
