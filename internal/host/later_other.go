//go:build !linux

package host

import "errors"

// sparePipe makes no spare pipes off Linux: only runDirect (Linux) takes
// them, so a Later there keeps none.
func sparePipe([]int) error {
	return errors.New("host: no spare pipes on this platform")
}
