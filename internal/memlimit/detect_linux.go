//go:build linux

package memlimit

import (
	"os"

	"github.com/shoalgo/shoal/internal/procfs"
	"golang.org/x/sys/unix"
)

// Detect reads this process's limits: getrlimit(RLIMIT_AS), the memory
// limits of its cgroup (/proc/self/cgroup, /proc/self/mountinfo and the
// files under the cgroup mounts) and sysinfo's total RAM. What cannot be
// read counts as no limit.
func Detect() Facts {
	var f Facts
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		f.RlimitAS = rl.Cur
	}
	pc, err1 := os.ReadFile("/proc/self/cgroup")
	mounts, err2 := procfs.ReadMounts()
	if err1 == nil && err2 == nil {
		f.Cgroup = cgroupLimit(string(pc), mounts, readSmall)
	}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		f.Physical = uint64(si.Totalram) * uint64(max(si.Unit, 1))
	}
	return f
}

// readSmall reads a cgroup file (a line of text).
func readSmall(name string) (string, error) {
	fh, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	buf := make([]byte, 64)
	n, err := fh.Read(buf)
	if n == 0 && err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
