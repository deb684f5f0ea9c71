//go:build !linux

package sandbox

import "errors"

// Run is never reached where there is no OS sandbox (Prepare returns no
// Confinement); it refuses.
func (c *Confinement) Run(fn func()) error {
	return errors.New("sandbox: no OS sandbox on this system")
}
