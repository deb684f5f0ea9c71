//go:build !linux

package sysmon

import "os"

// self is the running program's own file, by the path it was started from.
func self() string {
	p, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return p
}
