package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor above stderr that the
// kernel inherited close-on-exec. Go opens its own descriptors so, but
// one inherited without the flag (a pipe of the shell or service manager
// that started the kernel) would pass to every command a session runs:
// the kernel's own files are never a command's. Descriptors handed to a
// command on purpose (stdio, a sandbox's or supervisor's pipes) are
// dup'ed into it explicitly, which the flag does not affect.
func closeInheritedOnExec() error {
	err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("marking inherited descriptors close-on-exec: %w", err)
	}
	// Before Linux 5.11: each open descriptor, one by one.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("marking inherited descriptors close-on-exec: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		// The directory's own descriptor is closed by now: EBADF.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("marking descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}
