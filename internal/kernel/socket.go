package kernel

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/shoalgo/shoal/proto"
)

// maxSocketPath is the longest socket path the platform accepts
// (sun_path less its terminating NUL on Linux).
const maxSocketPath = 107

// ErrSocketInUse is returned by Listen when a live kernel already listens
// on the path.
var ErrSocketInUse = errors.New("a live listener already owns the socket")

// CheckSessionName reports whether name may name a session socket file.
func CheckSessionName(name string) error {
	if name == "" || len(name) > 64 || name[0] == '.' {
		return fmt.Errorf("invalid session name %q", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("invalid session name %q: use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// RuntimeDir returns the directory holding session sockets: the first of
// proto.SocketDirs, which clients search in the same order. getenv is
// os.Getenv in production.
func RuntimeDir(getenv func(string) string) string {
	return runtimeDir(getenv, "/run/user")
}

func runtimeDir(getenv func(string) string, runUser string) string {
	return proto.SocketDirs(getenv, runUser)[0]
}

// SocketPath returns explicit when set, else the discovered socket for
// session under RuntimeDir.
func SocketPath(explicit, session string, getenv func(string) string) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	if err := CheckSessionName(session); err != nil {
		return "", err
	}
	return filepath.Join(RuntimeDir(getenv), session+".sock"), nil
}

// Listen opens a Unix socket at path with mode 0600. Unless explicitParent,
// the parent directory (and for $TMPDIR or /tmp discovery its shoal-<uid>
// parent) is created 0700 and must be owned by us. An existing path is
// replaced only when it is a socket of our own uid with no listener; a live
// listener, another user's socket or a non-socket path is refused without
// touching anything.
func Listen(path string, explicitParent bool) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, longer than the %d the system allows", path, len(path), maxSocketPath)
	}
	dir := filepath.Dir(path)
	if !explicitParent {
		if err := ensurePrivateDir(dir); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating socket directory: %w", err)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		os.Remove(path)
		return nil, fmt.Errorf("securing socket %s: %w", path, err)
	}
	return l, nil
}

// ensurePrivateDir creates dir 0700 (and a shoal-<uid> parent, when dir's
// parent has that name) and checks that it belongs to us and is not open
// to others.
func ensurePrivateDir(dir string) error {
	parent := filepath.Dir(dir)
	if filepath.Base(parent) == "shoal-"+strconv.Itoa(os.Getuid()) {
		if err := mkPrivate(parent); err != nil {
			return err
		}
	}
	return mkPrivate(dir)
}

func mkPrivate(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating runtime directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking runtime directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("runtime directory %s is not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("runtime directory %s is not owned by uid %d", dir, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("securing runtime directory: %w", err)
		}
	}
	return nil
}

// clearStale removes path when it is our own socket with no listener; it
// returns an error, touching nothing, for anything else that exists.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("refusing to replace %s: not a socket", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("refusing to replace %s: socket belongs to another user", path)
	}
	c, err := net.DialTimeout("unix", path, StaleDialTimeout)
	if err == nil {
		c.Close()
		return fmt.Errorf("refusing to replace %s: %w", path, ErrSocketInUse)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("refusing to replace %s: cannot tell whether it is live: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("removing stale socket %s: %w", path, err)
	}
	return nil
}

// RemoveSocket removes path if it is still the socket l created (same
// inode), so a kernel never deletes a successor's socket.
func RemoveSocket(path string, ino uint64) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && uint64(st.Ino) != ino {
		return nil
	}
	return os.Remove(path)
}

// SocketInode returns the inode of the socket file at path.
func SocketInode(path string) (uint64, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("no inode information")
	}
	return uint64(st.Ino), nil
}
