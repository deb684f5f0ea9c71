// Package rawio reads and writes descriptors the runtime's poller serves
// with raw system calls (issue 24).
//
// Every read and write that os and net make goes through the runtime's
// entersyscall, and the first one after the process was idle wakes the
// monitor thread (sysmon) from its deep sleep: a futex wake, a context
// switch, and a nanosleep or more before it sleeps again. For a process
// that is idle between requests, that was a fifth of the MCP facade's CPU
// and an eighth of the kernel's (docs/performance.md, "The facade: the
// eighth round", "The request path: the tenth round"). A non-blocking
// descriptor never blocks in read(2) or write(2), so RW makes those calls
// as raw system calls inside the poller's syscall.RawConn: one that would
// block (EAGAIN) parks the goroutine in the poller as os and net do, with
// the same deadlines and the same wake-up on Close.
//
// Only descriptors whose non-blocking mode no other process can change may
// be served so: a pipe whose open file description is the process's own,
// and a socket, whose reads and writes say MSG_DONTWAIT themselves (a
// socket's description may be shared with a peer that makes it blocking).
//
// Raw system calls carry none of the race detector's annotations that
// syscall.Read and syscall.Write make (the ordering of a write before the
// read that sees its bytes); Race reports a race-detector build, in which
// a caller whose tests pass data between goroutines of one process through
// a descriptor should keep to os and net.
//
// QuietWrites takes room to write out of a socket's registration in the
// runtime's poller until a write has to wait for it: a Unix socket
// signals room each time its peer reads, which woke a server's idle
// thread once an answer for nothing.
//
// Supported reports whether this platform has raw I/O; elsewhere RW's
// methods fail with errors.ErrUnsupported.
package rawio
