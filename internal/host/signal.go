package host

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName renders a signal as "SIGSEGV", or "SIG<n>" when unnamed.
func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "SIG" + strconv.Itoa(int(sig))
}
