//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package host

import "golang.org/x/sys/unix"

// The ioctl requests that read and set a terminal's attributes.
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)
