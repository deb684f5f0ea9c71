//go:build !linux

package mcp

import "os"

// PollableStdio returns stdin and stdout as they are: reopening a pipe
// through /proc/self/fd, as on Linux, is not available here.
func PollableStdio() (stdin, stdout *os.File, restore func()) {
	return os.Stdin, os.Stdout, func() {}
}
