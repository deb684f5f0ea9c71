package main

import (
	"os"
	"strings"

	"github.com/shoalgo/shoal/client"
)

// kernelFlag finds a `--kernel` given without a socket among shoal's own
// flags (before the first operand or `--`), so that `shoal --kernel -c
// SRC`, `shoal --kernel` and `shoal --kernel script.shl` attach to the
// discovered kernel as every other client does, instead of taking the
// next word for the socket. It returns args without that flag and whether
// it was there. A following word is the socket unless it is a flag, or
// names an existing file that is not a socket (a script to run).
func kernelFlag(args []string) (rest []string, discover bool) {
	valued := map[string]bool{"c": true, "command": true, "session": true, "token": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return args, false
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if valued[name] {
			i++ // its value
			continue
		}
		if name != "kernel" {
			continue
		}
		if i+1 < len(args) && !bareKernelBefore(args[i+1]) {
			i++ // --kernel SOCKET
			continue
		}
		rest = append(append([]string(nil), args[:i]...), args[i+1:]...)
		return rest, true
	}
	return args, false
}

// bareKernelBefore reports whether next, the word after `--kernel`, is
// not its socket: a flag, or an existing file that is not a socket.
func bareKernelBefore(next string) bool {
	if strings.HasPrefix(next, "-") {
		return true
	}
	fi, err := os.Stat(next)
	return err == nil && fi.Mode()&os.ModeSocket == 0
}

// discoveredSocket is the socket `--kernel` without one attaches to: the
// kernel serving session, found as shoal-mcp and shoal doctor find it.
func discoveredSocket(session string) string { return client.DefaultSocketPath(session) }
