//go:build !linux

package sandbox

import "errors"

func probeKernel() Support {
	return Support{Reason: "Landlock is a Linux facility; this system has no OS sandbox"}
}

// confinement is empty where there is no OS sandbox: Probe reports
// nothing enforced, so Prepare never builds one.
type confinement struct{}

func (c *confinement) prepare(Rules, int) (bool, error) {
	return false, errors.New("sandbox: no OS sandbox on this system")
}

func (c *confinement) restrict() error { return errors.New("sandbox: no OS sandbox on this system") }

func (c *confinement) close() {}
