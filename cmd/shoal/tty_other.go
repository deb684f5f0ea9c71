//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package main

import "os"

// isTerminal approximates a terminal check where no termios is available:
// any character device counts.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// echoesInterrupt: without termios, assume the terminal does not echo.
func echoesInterrupt(*os.File) bool { return false }
