package mcp

import "golang.org/x/sys/unix"

// polledStdio reports whether fd is served by the runtime's poller as
// PollableStdio leaves it: a pipe or a socket whose description is
// non-blocking (Go polls a descriptor it finds so, and PollableStdio
// made it so).
func polledStdio(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK == 0 {
		return false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		return true
	}
	return false
}
