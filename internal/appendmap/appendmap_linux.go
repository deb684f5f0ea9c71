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
// for appends.
func New(f *os.File, length int) (*Map, error) {
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
	return &Map{mem: mem, alloc: fi.Size()}, nil
}

// grow allocates f up to end rounded up to Step (within the mapping). A
// file system without fallocate turns the mapping off for good; any other
// failure is this append's (it goes through pwrite).
func (m *Map) grow(f *os.File, end int64) error {
	n := min((end+Step-1)/Step*Step, int64(len(m.mem)))
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
	// Fault the new pages in now, in one call, rather than one page fault
	// an append at a time (MADV_POPULATE_WRITE, Linux 5.14; an error
	// leaves them to fault as before).
	from := m.alloc &^ int64(os.Getpagesize()-1)
	_ = syscall.Madvise(m.mem[from:n], madvPopulateWrite)
	m.alloc = n
	return nil
}

// madvPopulateWrite is MADV_POPULATE_WRITE, which package syscall lacks.
const madvPopulateWrite = 23

func unmap(mem []byte) { _ = syscall.Munmap(mem) }
