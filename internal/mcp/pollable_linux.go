package mcp

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// PollableStdio returns stdin and stdout (the process's own, fds 0 and
// 1) served by the runtime's network poller when each is a pipe or a
// socket, and a function that puts back what it changed; anything else
// (a terminal, a file, /dev/null) is returned as it is.
//
// Go reads and writes a blocking descriptor in a system call that holds
// a thread, and while a goroutine sits in a system call the runtime's
// monitor thread keeps waking instead of sleeping, and the scheduler
// cannot run other goroutines on the processor that thread holds until
// the monitor takes it back (issue 24: the largest costs per call after
// the hand-offs themselves). Through the poller a read parks its
// goroutine, one thread waits in epoll for stdin and the kernel's socket
// alike, and the process sleeps between calls.
//
// A pipe is reopened through /proc/self/fd as an open file description
// of the facade's own, made non-blocking, and put on the same descriptor
// number (so a write to a stdout whose reader is gone still ends the
// process with SIGPIPE, as Go does for fds 1 and 2): the description the
// client or a shell may share stays as it was. A socket cannot be
// reopened, so its description is made non-blocking and the returned
// function makes it blocking again.
func PollableStdio() (stdin, stdout *os.File, restore func()) {
	stdin, stdout = os.Stdin, os.Stdout
	in, undoIn := pollableFD(0, unix.O_RDONLY, stdin.Name())
	if in != nil {
		stdin = in
	}
	out, undoOut := pollableFD(1, unix.O_WRONLY, stdout.Name())
	if out != nil {
		stdout = out
	}
	return stdin, stdout, func() { undoOut(); undoIn() }
}

// pollableFD is PollableStdio for one descriptor, to be read (mode
// O_RDONLY) or written (O_WRONLY): a file for fd served by the poller,
// or nil when fd is left as it is.
func pollableFD(fd, mode int, name string) (*os.File, func()) {
	none := func() {}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		// Non-blocking already: Go polls a descriptor it finds so.
		return nil, none
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil, none
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		own, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), mode|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, none
		}
		// dup3 without O_CLOEXEC: the number stays what it was, as
		// inheritable as it was.
		err = unix.Dup3(own, fd, 0)
		unix.Close(own)
		if err != nil {
			return nil, none
		}
		return os.NewFile(uintptr(fd), name), none
	case unix.S_IFSOCK:
		// A descriptor of its own for the description, so that it can
		// be made blocking again after the file is closed.
		keep, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return nil, none
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags|unix.O_NONBLOCK); err != nil {
			unix.Close(keep)
			return nil, none
		}
		return os.NewFile(uintptr(fd), name), func() {
			_, _ = unix.FcntlInt(uintptr(keep), unix.F_SETFL, flags)
			unix.Close(keep)
		}
	}
	return nil, none
}
