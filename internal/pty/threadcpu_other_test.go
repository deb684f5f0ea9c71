//go:build !linux

package pty

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the process has used: this platform has no
// per-thread figure, so other threads count too.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
