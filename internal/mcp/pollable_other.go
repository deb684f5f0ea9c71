//go:build !linux

package mcp

import "os"

// PollableStdin returns f: only Linux reopens a pipe as the facade's own
// (see the Linux version).
func PollableStdin(f *os.File) *os.File { return f }
