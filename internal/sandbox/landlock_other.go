//go:build !linux

package sandbox

import "errors"

func probeKernel() Support {
	return Support{Reason: "Landlock is a Linux facility; this system has no OS sandbox"}
}

func apply(r Rules, abi int) error {
	if r.restricts() {
		return errors.New("sandbox: no OS sandbox on this system")
	}
	return nil
}
