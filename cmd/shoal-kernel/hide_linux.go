package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// hideProcess makes the kernel's process not dumpable. A program a
// session runs as the kernel's user without CAP_SYS_PTRACE (the program
// of a principal whose grants leave its sandbox open, or any program on a
// machine without Landlock) then cannot ptrace the kernel, read its
// memory or environment, or open its descriptors (the journal, the token
// store, other clients' sockets) through /proc/<pid>: Linux owns those
// entries by root and refuses them. Core dumps, which would hold the same
// secrets, are not written either. Children do not inherit it: exec makes
// a program dumpable again.
func hideProcess() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the kernel's process not dumpable: %w", err)
	}
	return nil
}
