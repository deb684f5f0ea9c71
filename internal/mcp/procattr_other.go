//go:build !linux

package mcp

import "syscall"

// kernelProcAttr starts a private kernel in its own process group. This
// system has no parent-death signal, so a shoal-mcp killed with SIGKILL
// leaves its private kernel running.
func kernelProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
