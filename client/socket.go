package client

import (
	"os"
	"path/filepath"

	"github.com/shoalgo/shoal/proto"
)

// SocketCandidates returns the places a kernel for session may listen, in
// discovery order: $XDG_RUNTIME_DIR/shoal/<session>.sock (with
// XDG_RUNTIME_DIR unset, the login runtime directory /run/user/<uid> when
// it is the user's own, mode 0700, as the kernel does: an MCP client that
// starts shoal-mcp with a minimal environment still finds the kernel the
// user started from a login shell), $TMPDIR/shoal-<uid>/shoal/<session>.sock
// and /tmp/shoal-<uid>/shoal/<session>.sock. Unset variables are skipped.
// An empty session means "default".
func SocketCandidates(session string) []string {
	return socketCandidates(session, os.Getenv, "/run/user")
}

func socketCandidates(session string, getenv func(string) string, runUser string) []string {
	if session == "" {
		session = "default"
	}
	dirs := proto.SocketDirs(getenv, runUser)
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = filepath.Join(d, session+".sock")
	}
	return out
}

// SocketEnv names the environment variable that, when set, is the kernel
// socket every client uses, before any discovery.
const SocketEnv = "SHOAL_SOCKET"

// DefaultSocketPath returns $SHOAL_SOCKET when it is set; otherwise the
// first candidate from [SocketCandidates] where a socket exists, or the
// first candidate when none does.
func DefaultSocketPath(session string) string {
	if p := os.Getenv(SocketEnv); p != "" {
		return p
	}
	cands := SocketCandidates(session)
	for _, p := range cands {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return p
		}
	}
	return cands[0]
}
