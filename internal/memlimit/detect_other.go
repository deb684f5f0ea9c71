//go:build !linux

package memlimit

import "golang.org/x/sys/unix"

// Detect reads this process's address-space limit; cgroups and the
// physical memory are looked for on Linux only.
func Detect() Facts {
	var f Facts
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		f.RlimitAS = uint64(rl.Cur)
	}
	return f
}
