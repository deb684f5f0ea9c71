//go:build !linux && !darwin

package host

import "time"

// uptime is unknown on platforms without a supported boot clock.
func uptime() (time.Duration, bool) { return 0, false }
