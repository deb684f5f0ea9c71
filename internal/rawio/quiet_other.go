//go:build !linux

package rawio

import "syscall"

// QuietWrites is Linux's: here Quiet does nothing and reports false.
type QuietWrites struct{}

// NewQuietWrites is a QuietWrites that does nothing.
func NewQuietWrites(rc syscall.RawConn) *QuietWrites { return &QuietWrites{} }

func (q *QuietWrites) Quiet() bool   { return false }
func (q *QuietWrites) Wake() bool    { return true }
func (q *QuietWrites) Quieted() bool { return false }
