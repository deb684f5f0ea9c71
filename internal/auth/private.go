package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The store is trusted only when nobody but its owner could have written
// it: the file and the directory holding it must both be owned by the
// process's effective uid and writable by neither group nor others. Every
// file in the directory is opened relative to one checked directory
// descriptor, with O_NOFOLLOW (a symbolic link is refused, never followed)
// and O_NONBLOCK (a FIFO planted in place of the store cannot hang the
// open), and is checked with fstat on what was actually opened, so nothing
// can be swapped between the check and the use.

// ErrNotPrivate reports a store file or directory that someone other than
// its owner could write, or that is not what a store should be (a symbolic
// link, a FIFO, another user's file). It is always wrapped in
// ErrStoreUnavailable.
var ErrNotPrivate = errors.New("not private to this user")

// storeDir is an open, checked state directory.
type storeDir struct {
	fd   int
	path string
}

// openDir opens and checks dir. A missing directory is fs.ErrNotExist.
func openDir(dir string) (*storeDir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("opening directory %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("stat %s: %w", dir, err)
	}
	if err := checkPrivate("directory", dir, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &storeDir{fd: fd, path: dir}, nil
}

func (d *storeDir) close() { unix.Close(d.fd) }

// checkPrivate refuses a file or directory that is not owned by the
// effective uid or is writable by group or others.
func checkPrivate(what, path string, st *unix.Stat_t) error {
	if euid := os.Geteuid(); int(st.Uid) != euid {
		return fmt.Errorf("%w: %s %s is owned by uid %d, not by this user (uid %d)", ErrNotPrivate, what, path, st.Uid, euid)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("%w: %s %s is writable by group or others (mode %04o); chmod go-w it", ErrNotPrivate, what, path, st.Mode&0o7777)
	}
	return nil
}

// kindOf names a file type for messages.
func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// openFile opens name in d without following a symbolic link or blocking,
// and checks that it is a private regular file. A missing file is
// fs.ErrNotExist unless flags include O_CREAT.
func (d *storeDir) openFile(name string, flags int) (*os.File, *unix.Stat_t, error) {
	path := filepath.Join(d.path, name)
	fd, err := unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, nil, fs.ErrNotExist
		case errors.Is(err, unix.ELOOP):
			return nil, nil, fmt.Errorf("%w: %s is a symbolic link (the store is never followed through one)", ErrNotPrivate, path)
		case errors.Is(err, unix.ENXIO):
			// Opening a socket, or a FIFO for writing with no reader.
			return nil, nil, fmt.Errorf("%w: %s is not a regular file", ErrNotPrivate, path)
		}
		return nil, nil, fmt.Errorf("opening %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("%w: %s is %s", ErrNotPrivate, path, kindOf(uint32(st.Mode)))
	}
	if err := checkPrivate("file", path, &st); err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), path), &st, nil
}

// read reads the store file name. A missing file reads as empty. A store
// readable by group or others is tightened to 0600 (best effort: it holds
// digests, not secrets).
func (d *storeDir) read(name string) ([]byte, fileIdent, error) {
	f, st, err := d.openFile(name, unix.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileIdent{}, nil
	}
	if err != nil {
		return nil, fileIdent{}, err
	}
	defer f.Close()
	id := identOfStat(st)
	if st.Size > MaxStoreBytes {
		return nil, id, fmt.Errorf("%s is %d bytes, over the %d-byte bound on a token store", f.Name(), st.Size, MaxStoreBytes)
	}
	if st.Mode&0o077 != 0 {
		_ = f.Chmod(0o600)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreBytes+1))
	if err != nil {
		return nil, id, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	if len(data) > MaxStoreBytes {
		return nil, id, fmt.Errorf("%s grew past the %d-byte bound on a token store", f.Name(), MaxStoreBytes)
	}
	return data, id, nil
}

// readFile reads the store at path and the identity of what was read. A
// missing file, or a missing directory, reads as empty.
func readFile(path string) ([]byte, fileIdent, error) {
	d, err := openDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileIdent{}, nil
	}
	if err != nil {
		return nil, fileIdent{}, err
	}
	defer d.close()
	return d.read(filepath.Base(path))
}

// writeAtomic replaces name in d with data: a 0600 temporary file in the
// same directory is created exclusively, written, synced and renamed over
// name (a rename replaces a symbolic link rather than following it), then
// the directory is synced so the rename survives a crash.
func (d *storeDir) writeAtomic(name string, data []byte) (err error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	fd, err := unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating a temporary file in %s: %w", d.path, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
	defer func() {
		if err != nil {
			f.Close()
			_ = unix.Unlinkat(d.fd, tmp, 0)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		return fmt.Errorf("renaming into %s: %w", d.path, err)
	}
	_ = unix.Fsync(d.fd) // best effort: some filesystems refuse to sync directories
	return nil
}

// identOfStat identifies one version of the store file.
func identOfStat(st *unix.Stat_t) fileIdent {
	return fileIdent{exists: true, dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// statIdent identifies the store file at path without following a
// symbolic link; a missing file has the zero identity.
func statIdent(path string) (fileIdent, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return fileIdent{}, nil
		}
		return fileIdent{}, err
	}
	return identOfStat(&st), nil
}
