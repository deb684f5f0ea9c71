package diewithparent

import "syscall"

// Attr is a SysProcAttr whose child is killed when the thread that
// started it exits.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
