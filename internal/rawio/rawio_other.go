//go:build !linux

package rawio

import (
	"errors"
	"os"
	"syscall"
)

// Supported reports whether raw I/O is available: it is Linux's.
const Supported = false

// RW is unsupported here.
type RW struct {
	RC   syscall.RawConn
	Sock bool
}

func (r *RW) Read(p []byte) (int, error)     { return 0, errors.ErrUnsupported }
func (r *RW) Write(p []byte) (int, error)    { return 0, errors.ErrUnsupported }
func (r *RW) TryWrite(p []byte) (int, error) { return 0, errors.ErrUnsupported }

// WriteFile writes p to f with f.Write: raw I/O is Linux's.
func WriteFile(f *os.File, p []byte) (int, error) { return f.Write(p) }
