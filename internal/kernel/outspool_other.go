//go:build !linux

package kernel

import (
	"errors"
	"os"
)

// spoolFilesSupported: without hole punching, spools stay in memory.
const spoolFilesSupported = false

func punchHole(*os.File, int64, int64) error { return errors.ErrUnsupported }
