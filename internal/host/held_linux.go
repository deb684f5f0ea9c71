package host

// The Linux primitives of held file access (held.go): every path the gate
// judged is opened with openat2 and RESOLVE_NO_SYMLINKS, so it resolves to
// exactly the components the gate saw, and a symlink swapped in anywhere
// fails the open with ELOOP instead of being followed.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// heldFS says whether this build acts on held descriptors when gated.
const heldFS = true

// resolveHeld refuses every symlink and every /proc magic link while a
// judged path is opened.
const resolveHeld = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openHeld opens real, a symlink-free absolute path the gate judged,
// relative to dirfd (unix.AT_FDCWD for an absolute path). A symlink met on
// the way is errRace: the path changed after it was resolved.
func openHeld(dirfd int, real string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolveHeld}
	if flags&unix.O_CREAT != 0 {
		how.Mode = uint64(mode)
	}
	for {
		fd, err := unix.Openat2(dirfd, real, &how)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, heldErr("open", real, err)
		}
		return fd, nil
	}
}

// heldErr maps a system call's error on a judged path: ELOOP (a symlink
// where the gate saw none) and EAGAIN (the kernel saw a concurrent rename)
// are errRace, ENOSYS (no openat2, Linux before 5.6) fails closed.
func heldErr(op, path string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EAGAIN):
		return errRace
	case errors.Is(err, unix.ENOSYS):
		return &fs.PathError{Op: op, Path: path, Err: ErrNoHeldOpen}
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// openParent opens the directory holding real (O_PATH) for a name
// operation on its last component, which is returned and never followed.
func openParent(real string) (int, string, error) {
	dir, base := filepath.Split(real)
	if base == "" || base == "." || base == ".." {
		return -1, "", &fs.PathError{Op: "open", Path: real, Err: unix.EINVAL}
	}
	fd, err := openHeld(unix.AT_FDCWD, filepath.Clean(dir), unix.O_PATH|unix.O_DIRECTORY, 0)
	return fd, base, err
}

// statAt is fstatat of name in dirfd without following a final symlink
// (name "" stats dirfd itself).
func statAt(dirfd int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	flags := unix.AT_SYMLINK_NOFOLLOW
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	err := unix.Fstatat(dirfd, name, &st, flags)
	return st, err
}

// heldInfo is an fs.FileInfo from a stat of a held descriptor.
type heldInfo struct {
	name string
	st   unix.Stat_t
}

func (h *heldInfo) Name() string       { return h.name }
func (h *heldInfo) Size() int64        { return h.st.Size }
func (h *heldInfo) Mode() fs.FileMode  { return modeOf(h.st.Mode) }
func (h *heldInfo) ModTime() time.Time { return time.Unix(h.st.Mtim.Unix()) }
func (h *heldInfo) IsDir() bool        { return h.Mode().IsDir() }
func (h *heldInfo) Sys() any           { return &h.st }

// sameInode reports whether two stats name one file.
func sameInode(a, b *unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }

// modeOf converts a stat mode to an fs.FileMode as package os does.
func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// heldIdentity is the device and inode of the judged path real, opened
// without following any symlink.
func heldIdentity(real string) ([2]uint64, error) {
	fd, err := openHeld(unix.AT_FDCWD, real, unix.O_PATH, 0)
	if err != nil {
		return [2]uint64{}, err
	}
	defer unix.Close(fd)
	st, err := statAt(fd, "")
	if err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, nil
}

// sameFile is os.SameFile that also knows the held stats of a gated host.
func sameFile(a, b fs.FileInfo) bool {
	if os.SameFile(a, b) {
		return true
	}
	da, ia, oka := devIno(a)
	db, ib, okb := devIno(b)
	return oka && okb && da == db && ia == ib
}

func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	switch st := fi.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	case *unix.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	}
	return 0, 0, false
}
