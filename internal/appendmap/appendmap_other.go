//go:build !linux

package appendmap

import (
	"errors"
	"os"
)

// Supported says New can map files here: on Linux only.
const Supported = false

// New fails here: callers write as before.
func New(*os.File, int, int64) (*Map, error) { return nil, errors.ErrUnsupported }

func (m *Map) grow(*os.File, int64) error { return errors.ErrUnsupported }

func unmap([]byte) {}
