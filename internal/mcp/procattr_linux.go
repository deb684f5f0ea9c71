package mcp

import "syscall"

// kernelProcAttr starts a private kernel in its own process group, with
// SIGTERM as its parent-death signal (see startKernel).
func kernelProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
