package host

import (
	"time"

	"golang.org/x/sys/unix"
)

// uptime is the time since the kernel's recorded boot time.
func uptime() (time.Duration, bool) {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return 0, false
	}
	boot := time.Unix(tv.Sec, int64(tv.Usec)*1000)
	return time.Since(boot), true
}
