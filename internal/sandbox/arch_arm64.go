//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// The architecture the socket filter checks system calls against; arm64
// has no x32-style alternative numbering.
const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32Bit    = 0
)
