package cas

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeAtomic writes data to a fresh temporary file in dir and renames it
// to p, with plain system calls: an os.File would put the descriptor in
// non-blocking mode and try the poller (three system calls more, which
// fail for a regular file) on every exec's blob. made remembers that dir
// exists, so that it is not checked again; a directory removed meanwhile
// is made again.
func writeAtomic(made *dirsMade, dir, p string, data []byte) error {
	if !made.has(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		made.set(dir)
	}
	fd, name, err := createTemp(dir)
	if errors.Is(err, unix.ENOENT) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		fd, name, err = createTemp(dir)
	}
	if err != nil {
		return &os.PathError{Op: "create", Path: filepath.Join(dir, tmpPrefix+"*"), Err: err}
	}
	werr := writeAll(fd, data)
	cerr := unix.Close(fd)
	if err := errors.Join(werr, cerr); err != nil {
		unix.Unlink(name)
		return &os.PathError{Op: "write", Path: name, Err: err}
	}
	if err := unix.Rename(name, p); err != nil {
		unix.Unlink(name)
		return &os.LinkError{Op: "rename", Old: name, New: p, Err: err}
	}
	return nil
}

// createTemp creates a new file named tmpPrefix and a random number in
// dir, as os.CreateTemp does (mode 0600, a new name on a collision).
func createTemp(dir string) (int, string, error) {
	for range 100 {
		name := filepath.Join(dir, tmpPrefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		if err == unix.EEXIST {
			continue
		}
		return fd, name, err
	}
	return -1, "", unix.EEXIST
}

// writeAll writes all of data to fd.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}
