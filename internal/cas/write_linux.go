package cas

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// writeAtomic writes data to a fresh temporary file in dir and renames it
// to p, with plain system calls: an os.File would put the descriptor in
// non-blocking mode and try the poller (three system calls more, which
// fail for a regular file) on every exec's blob. made remembers that dir
// exists, so that it is not checked again; a directory removed meanwhile
// is made again.
//
// The temporary file is the store's spare when it has one (RunSpares): an
// empty file made earlier in the store's root, off Put's path, and
// renamed across into dir.
func (s *Store) writeAtomic(dir, p string, data []byte) error {
	made := &s.made
	if !made.has(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		made.set(dir)
	}
	// An empty blob gets a fresh file: its time would be the spare's
	// making, which Sweep's grace reads as the blob's.
	if len(data) > 0 {
		if fd, name := s.spare.take(); fd >= 0 {
			if err := finishTemp(fd, name, p, data); err == nil {
				return nil
			}
			// The spare failed (removed meanwhile?): make one here.
		}
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
	return finishTemp(fd, name, p, data)
}

// finishTemp writes data to the temporary file fd, named name, closes it
// and renames it to p; on failure the temporary file is removed.
func finishTemp(fd int, name, p string, data []byte) error {
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

// spareFile is the one empty temporary file a Store keeps ready for its
// next Put while RunSpares runs, which makes the next one each time Put
// takes it. A spare left by a process that died is an empty temporary
// file in the store's root, removed by Sweep like any stale temporary.
type spareFile struct {
	mu   sync.Mutex
	fd   int // valid when name is not ""
	name string
	want chan struct{} // Put took the spare; made by RunSpares
}

// take hands over the spare, or -1, and asks RunSpares for the next.
func (f *spareFile) take() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.name == "" {
		return -1, ""
	}
	fd, name := f.fd, f.name
	f.fd, f.name = -1, ""
	select {
	case f.want <- struct{}{}:
	default:
	}
	return fd, name
}

// RunSpares keeps an empty temporary file ready for the next Put, made
// here rather than on Put's path, until ctx ends; then it removes the
// spare it holds. Creating the file is most of a Put's cost (ext4 looks
// for a free inode not recently freed, a scan that grows with the file
// churn of the whole file system). If making one fails, Puts make their
// own and RunSpares returns.
func (s *Store) RunSpares(ctx context.Context) {
	f := &s.spare
	f.mu.Lock()
	if f.want != nil {
		f.mu.Unlock()
		return // already running
	}
	want := make(chan struct{}, 1)
	f.want = want
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if f.name != "" {
			unix.Close(f.fd)
			unix.Unlink(f.name)
			f.fd, f.name = -1, ""
		}
		f.want = nil
		f.mu.Unlock()
	}()
	for {
		fd, name, err := createTemp(s.dir)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.fd, f.name = fd, name
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-want:
		}
	}
}

// spareName is the current spare's path, "" when there is none.
func (s *Store) spareName() string {
	s.spare.mu.Lock()
	defer s.spare.mu.Unlock()
	return s.spare.name
}
