package host

import "golang.org/x/sys/unix"

// sparePipe makes one close-on-exec pipe for a Later's spare pair.
func sparePipe(p []int) error {
	return unix.Pipe2(p, unix.O_CLOEXEC)
}
