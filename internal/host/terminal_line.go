package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLineTooLong is returned by ReadTerminalLine for a line longer than
// its bound.
var ErrLineTooLong = errors.New("line too long")

// terminalPollInterval is how often ReadTerminalLine looks at its context
// while it waits for the user.
const terminalPollInterval = 100 * time.Millisecond

// ReadTerminalLine writes prompt to the terminal open on descriptor tty and
// reads one line from it in the terminal's line mode (the line discipline
// echoes and edits what is typed), whatever mode the terminal was in; that
// mode is restored before it returns. The line comes back without its
// newline. At most max bytes are kept (ErrLineTooLong past them); Ctrl-D
// on an empty line is io.EOF; cancelling ctx (Ctrl-C, which the terminal
// signals to the caller) ends the wait with ctx's error.
func (o *OS) ReadTerminalLine(ctx context.Context, tty int, prompt string, max int) (string, error) {
	old, err := unix.IoctlGetTermios(tty, ioctlGetTermios)
	if err != nil {
		return "", fmt.Errorf("descriptor %d is not a terminal: %w", tty, err)
	}
	line := *old
	line.Lflag |= unix.ICANON | unix.ECHO | unix.ECHOE | unix.ISIG
	line.Iflag |= unix.ICRNL
	line.Oflag |= unix.OPOST | unix.ONLCR
	if o.beforeLasting != nil {
		o.beforeLasting() // the terminal's modes outlive the process
	}
	if err := unix.IoctlSetTermios(tty, ioctlSetTermios, &line); err != nil {
		return "", fmt.Errorf("terminal modes: %w", err)
	}
	defer func() { _ = unix.IoctlSetTermios(tty, ioctlSetTermios, old) }()
	if err := writeAll(tty, []byte(prompt)); err != nil {
		return "", err
	}
	var got []byte
	buf := make([]byte, 512)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		fds := []unix.PollFd{{Fd: int32(tty), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(terminalPollInterval.Milliseconds()))
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return "", fmt.Errorf("terminal: %w", err)
		}
		if n == 0 {
			continue
		}
		r, err := unix.Read(tty, buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			return "", fmt.Errorf("terminal: %w", err)
		}
		if r == 0 {
			if len(got) == 0 {
				return "", io.EOF
			}
			return string(got), nil
		}
		if i := bytes.IndexByte(buf[:r], '\n'); i >= 0 {
			got = append(got, buf[:i]...)
			if len(got) > max {
				return "", ErrLineTooLong
			}
			return string(got), nil
		}
		got = append(got, buf[:r]...)
		if len(got) > max {
			return "", ErrLineTooLong
		}
	}
}

// writeAll writes b to fd, retrying short writes.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("terminal: %w", err)
		}
		b = b[n:]
	}
	return nil
}
