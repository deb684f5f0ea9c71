//go:build linux

package appendmap

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Supported says New can map files here.
const Supported = true

// New maps the first length bytes of f (its size may be less: the
// mapping reaches past its end, and AppendAt allocates before it copies)
// for appends, allocating the file step bytes at a time (a multiple of the
// page size; the file is at most that much longer than the appends).
func New(f *os.File, length int, step int64) (*Map, error) {
	if step <= 0 || step%int64(os.Getpagesize()) != 0 {
		return nil, fmt.Errorf("appendmap: step %d is not a multiple of the page size", step)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var mem []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		mem, merr = syscall.Mmap(int(fd), 0, length, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}); err != nil {
		return nil, err
	}
	if merr != nil {
		return nil, fmt.Errorf("appendmap: mapping %s: %w", f.Name(), merr)
	}
	return &Map{mem: mem, step: step, alloc: fi.Size()}, nil
}

// grow allocates f up to end rounded up to the step (within the mapping). A
// file system without fallocate turns the mapping off for good; any other
// failure is this append's (it goes through pwrite).
func (m *Map) grow(f *os.File, end int64) error {
	n := min((end+m.step-1)/m.step*m.step, int64(len(m.mem)))
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), 0, m.alloc, n-m.alloc)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr != nil {
		if errors.Is(ferr, syscall.EOPNOTSUPP) || errors.Is(ferr, syscall.ENOSYS) {
			m.noAlloc = true
		}
		return ferr
	}
	m.alloc = n
	return nil
}

func unmap(mem []byte) { _ = syscall.Munmap(mem) }
