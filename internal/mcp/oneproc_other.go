//go:build !linux

package mcp

// polledStdio reports false: PollableStdio serves nothing through the
// poller here.
func polledStdio(fd int) bool { return false }
