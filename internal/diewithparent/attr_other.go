//go:build !linux

package diewithparent

import "syscall"

// Attr is an empty SysProcAttr: this platform has no parent-death signal.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
