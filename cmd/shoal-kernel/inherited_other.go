//go:build !linux

package main

// closeInheritedOnExec is Linux's alone (inherited_linux.go); elsewhere
// the kernel relies on its starter passing no descriptors above stderr.
func closeInheritedOnExec() error { return nil }
