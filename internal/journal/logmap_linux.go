//go:build linux

package journal

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// logMapping says the log's segments are mapped (logmap.go).
const logMapping = true

// mapSegment maps segment f (logmap.go); nil, with the error, when it
// cannot be, and the segment's appends are then pwrites.
func mapSegment(f *os.File) (*segMap, error) {
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
		mem, merr = syscall.Mmap(int(fd), 0, logMapBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}); err != nil {
		return nil, err
	}
	if merr != nil {
		return nil, fmt.Errorf("journal: mapping log %s: %w", f.Name(), merr)
	}
	return &segMap{mem: mem, alloc: fi.Size()}, nil
}

// grow allocates f up to end rounded up to logMapStep (within the
// mapping). A file system without fallocate turns the mapping off for
// good; any other failure is this append's (it goes through pwrite).
func (m *segMap) grow(f *os.File, end int64) error {
	n := min((end+logMapStep-1)/logMapStep*logMapStep, int64(len(m.mem)))
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

// unmap drops the mapping.
func (m *segMap) unmap() {
	if m != nil && m.mem != nil {
		_ = syscall.Munmap(m.mem)
		m.mem = nil
	}
}
