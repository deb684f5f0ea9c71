//go:build !linux

package kernel

import "errors"

// spoolFilesSupported: without hole punching, spools stay in memory.
const spoolFilesSupported = false

func punchHole(uintptr, int64, int64) error { return errors.ErrUnsupported }
