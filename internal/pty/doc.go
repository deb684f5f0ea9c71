// Package pty runs one program on a pseudo-terminal and keeps what a
// person would see on that terminal: it owns the terminal pair, the
// goroutines that drain the program's output into a terminal emulator
// (github.com/charmbracelet/x/vt), a bounded scrollback of the lines that
// scrolled off, the encoding of typed input (text, named keys, raw
// bytes), window size changes and the end of the program: terminate, kill
// after a grace period, reap and report its exit.
//
// The program never blocks on its terminal: one goroutine reads the
// terminal as fast as the program writes, into a pending buffer of at
// most PendingBytes, and another feeds that buffer to the emulator. When
// the program writes faster than the emulator renders, the oldest
// unrendered output is skipped (counted in Snapshot.Skipped) rather than
// kept, so memory stays bounded however much it writes: the emulator's two
// grids of cols×rows cells, at most ScrollbackLines lines (ScrollbackBytes
// bytes) of scrollback text and twice PendingBytes of pending output.
//
// Starting the program is the caller's: Options.Start gets the terminal's
// child end and starts the program on it (the kernel's host asks its gate
// for proc_spawn, applies the OS sandbox and contains the process; see
// host.OS.StartAttached). The package has no notion of principals or
// sessions; the kernel scopes sessions (internal/kernel/ptys.go).
package pty
