//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// The architecture the socket filter checks system calls against, and
// the bit that marks an x32 system call (killed by the filter).
const (
	auditArch = unix.AUDIT_ARCH_X86_64
	x32Bit    = 0x40000000
)
