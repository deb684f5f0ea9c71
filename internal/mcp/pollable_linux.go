package mcp

import (
	"os"
	"strconv"
	"syscall"
)

// PollableStdin returns a file reading the pipe f is through the
// runtime's network poller, or f itself when f is not a pipe or cannot
// be reopened.
//
// Go reads a stdin that is a blocking pipe in a system call that holds
// a thread for as long as the client is quiet, and while a thread sits
// in a system call the runtime's monitor thread wakes every 20 µs
// instead of sleeping: between two tool calls, the facade's largest
// single cost (issue 24). Reopening the pipe through /proc/self/fd makes
// an open file description of the facade's own, so it can be made
// non-blocking without changing the one the client shares with it; a
// read then parks its goroutine, the process sleeps between calls, and
// closing the file ends a read waiting on it. (Stdout is left as it is:
// a write there is short, and a closed reader stops the facade with
// SIGPIPE as before.)
func PollableStdin(f *os.File) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return f
	}
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
