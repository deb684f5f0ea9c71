package main

import (
	"os/exec"
	"syscall"
)

// screenChild is the built shoal started on a terminal with os/exec, as
// internal/pty's Child: the screen tests drive it as a person would.
type screenChild struct{ cmd *exec.Cmd }

func (c screenChild) Pid() int { return c.cmd.Process.Pid }
func (c screenChild) Wait() (syscall.WaitStatus, error) {
	err := c.cmd.Wait()
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if _, ok := err.(*exec.ExitError); ok {
		err = nil
	}
	return ws, err
}
func (c screenChild) Signal(sig syscall.Signal) { _ = syscall.Kill(-c.cmd.Process.Pid, sig) }
func (c screenChild) Kill()                     { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }
