//go:build !linux

package rawio

import "errors"

// PeekReader is unsupported here: NewPeekReader reports false.
type PeekReader struct{}

// PeekOwedMax is as on Linux.
const PeekOwedMax = 16 << 10

// NewPeekReader reports false: raw I/O is Linux's.
func NewPeekReader(rw *RW) (*PeekReader, bool) { return nil, false }

func (r *PeekReader) Owed() int64                { return 0 }
func (r *PeekReader) Read(p []byte) (int, error) { return 0, errors.ErrUnsupported }
func (r *PeekReader) Release() error             { return errors.ErrUnsupported }
