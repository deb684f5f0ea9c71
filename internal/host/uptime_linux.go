package host

import (
	"time"

	"golang.org/x/sys/unix"
)

// uptime is the time since boot from CLOCK_BOOTTIME, which keeps counting
// while the machine is suspended.
func uptime() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
