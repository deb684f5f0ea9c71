//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities leaves the calling thread, and what it execs, with no
// capabilities: Landlock confines paths and ports, but a program with
// capabilities (a root kernel's children are root) could act where no
// path or port is involved: load a kernel module from memory, reboot,
// open raw sockets past the TCP rules, reconfigure the network. The
// bounding set is emptied first (execve by uid 0 would otherwise grant
// it afresh), then the ambient, inheritable, permitted and effective
// sets. A thread with no capabilities has nothing to drop; the uid stays
// what it is.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("sandbox: capget: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		// Nothing held; no_new_privs keeps execve from granting any
		// (set-user-ID and file capabilities are ignored under it).
		return nil
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("sandbox: dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("sandbox: clearing ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("sandbox: capset: %w", err)
	}
	return nil
}
