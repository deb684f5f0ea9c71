//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether fd is a terminal (not merely a character
// device such as /dev/null).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	return err == nil
}

// echoesInterrupt reports whether the terminal on f itself shows Ctrl-C as
// `^C` (ECHO and ECHOCTL), so the REPL need not print it again.
func echoesInterrupt(f *os.File) bool {
	t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	return err == nil && t.Lflag&unix.ECHO != 0 && t.Lflag&unix.ECHOCTL != 0
}
