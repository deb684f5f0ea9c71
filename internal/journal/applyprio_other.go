//go:build !linux

package journal

// backgroundThread does nothing off Linux, where a nice value is the
// whole process's, not a thread's.
func backgroundThread() int { return 0 }

// threadID is 0 off Linux.
func threadID() int { return 0 }
