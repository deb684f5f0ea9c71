package client

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
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
	name := session + ".sock"
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	var out []string
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		out = append(out, filepath.Join(d, "shoal", name))
	} else if d := loginRuntimeDir(runUser); d != "" {
		out = append(out, filepath.Join(d, "shoal", name))
	}
	if d := getenv("TMPDIR"); d != "" {
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

// loginRuntimeDir is <runUser>/<uid> (systemd's XDG_RUNTIME_DIR) when it
// is a directory of this user's with mode 0700, else "".
func loginRuntimeDir(runUser string) string {
	p := filepath.Join(runUser, strconv.Itoa(os.Getuid()))
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return ""
	}
	return p
}
