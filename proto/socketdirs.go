package proto

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// SocketDirs returns the directories that hold a kernel's session sockets
// (<dir>/<session>.sock), in discovery order: a kernel binds in the first,
// clients look in each. They are $XDG_RUNTIME_DIR/shoal (with the variable
// unset, <runUser>/<uid>/shoal when that login runtime directory, systemd's
// /run/user/<uid>, is the user's own with mode 0700), then
// $TMPDIR/shoal-<uid>/shoal, then /tmp/shoal-<uid>/shoal. A variable that
// is empty or not an absolute path is skipped. getenv is os.Getenv and
// runUser "/run/user" in production.
func SocketDirs(getenv func(string) string, runUser string) []string {
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	var out []string
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		if filepath.IsAbs(x) {
			out = append(out, filepath.Join(x, "shoal"))
		}
	} else if d := loginRuntimeDir(runUser); d != "" {
		out = append(out, filepath.Join(d, "shoal"))
	}
	if t := getenv("TMPDIR"); t != "" && filepath.IsAbs(t) {
		out = append(out, filepath.Join(t, uid, "shoal"))
	}
	return append(out, filepath.Join("/tmp", uid, "shoal"))
}

// loginRuntimeDir is <runUser>/<uid> when it is a directory of this
// user's with mode 0700, else "".
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
