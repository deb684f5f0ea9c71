//go:build !linux

package journal

import (
	"errors"
	"os"
)

// logMapping says the log's segments are mapped (logmap.go): on Linux
// only.
const logMapping = false

func mapSegment(*os.File) (*segMap, error) { return nil, errors.ErrUnsupported }

func (m *segMap) grow(*os.File, int64) error { return errors.ErrUnsupported }

func (m *segMap) unmap() {}
