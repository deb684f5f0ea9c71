package client

import (
	"os"
	"path/filepath"
	"strconv"
)

// SocketCandidates returns the places a kernel for session may listen, in
// discovery order: $XDG_RUNTIME_DIR/shoal/<session>.sock,
// $TMPDIR/shoal-<uid>/shoal/<session>.sock and
// /tmp/shoal-<uid>/shoal/<session>.sock. Unset variables are skipped. An
// empty session means "default".
func SocketCandidates(session string) []string {
	if session == "" {
		session = "default"
	}
	name := session + ".sock"
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	var out []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		out = append(out, filepath.Join(d, "shoal", name))
	}
	if d := os.Getenv("TMPDIR"); d != "" {
		out = append(out, filepath.Join(d, uid, "shoal", name))
	}
	out = append(out, filepath.Join("/tmp", uid, "shoal", name))
	return out
}

// DefaultSocketPath returns the first candidate from [SocketCandidates]
// where a socket exists, or the first candidate when none does.
func DefaultSocketPath(session string) string {
	cands := SocketCandidates(session)
	for _, p := range cands {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return p
		}
	}
	return cands[0]
}
