// Package appendmap appends to a file through a shared mapping of it: an
// append is a copy into the file's pages in the page cache, where a
// write(2) of the same bytes costs a system call and the file system's
// buffered-write path (on ext4 in this project's measurements, several
// microseconds of CPU an append; docs/performance.md, "`exec "1 + 1"`:
// the twenty-third round"). The bytes land in the same page-cache pages a
// write(2) fills, so what was appended survives the death of the process
// exactly as a returned write(2) does; neither survives a power loss
// unless the file is synced (fsync covers pages written through the
// mapping too), and other readers of the file (read(2), pread) see them
// at once.
//
// The file is grown ahead of the appends with fallocate(2), a step (New's
// argument) at a time, and a copy never touches a byte at or past the
// file's end (that would be SIGBUS). Because fallocate reserves the blocks, a full disk
// fails the fallocate, and the append then goes through pwrite(2) and
// fails as a write(2) would, rather than failing the copy. So the file
// is up to a step longer than what was appended, the rest zeros: a reader
// of the file must stop at those zeros (the journal's intent log and the
// blob store's pack do). An append past the mapping, or on a file system
// that has no fallocate, is a pwrite(2) at its offset. The file must not
// be opened with O_APPEND (its end is not the appended bytes' end). If
// the file is cut under the mapping by another hand after all, the copy's
// fault is caught (debug.SetPanicOnFault): that append fails, and the
// later ones are pwrites.
//
// Linux only; elsewhere New fails and callers write as before.
package appendmap

import (
	"errors"
	"os"
	"runtime/debug"
)

// Map is the shared mapping of one file, for appends to it.
type Map struct {
	mem []byte // the mapping
	// step is how far ahead of the appended bytes the file is allocated.
	step int64
	// alloc is the file's size: bytes below it may be touched.
	alloc int64
	// noAlloc: the file system refused fallocate; appends are pwrites.
	noAlloc bool
}

// AppendAt writes b to f, mapped as m, at offset at (the end of what was
// appended so far), and returns the bytes written: a copy into the
// mapping when b fits in it, a pwrite otherwise.
func (m *Map) AppendAt(f *os.File, b []byte, at int64) (int, error) {
	end := at + int64(len(b))
	if end <= int64(len(m.mem)) && !m.noAlloc {
		if end <= m.alloc || m.grow(f, end) == nil {
			return m.copyAt(b, at)
		}
	}
	n, err := f.WriteAt(b, at)
	m.alloc = max(m.alloc, at+int64(n))
	return n, err
}

// ErrFault is an append whose copy faulted: the file was cut under the
// mapping. Later appends are pwrites.
var ErrFault = errors.New("appendmap: the file was cut under its mapping")

// copyAt copies b into the mapping at offset at, catching the fault of a
// page the file no longer has.
func (m *Map) copyAt(b []byte, at int64) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			m.noAlloc = true
			n, err = 0, ErrFault
		}
	}()
	return copy(m.mem[at:], b), nil
}

// Truncated records that the file was cut to n bytes (or extended to
// them). A nil m does nothing.
func (m *Map) Truncated(n int64) {
	if m != nil {
		m.alloc = n
	}
}

// Allocated is the file's size as m knows it: what was appended and the
// zeros allocated ahead of it.
func (m *Map) Allocated() int64 { return m.alloc }

// Unmap drops the mapping; m is not used after. A nil m does nothing.
func (m *Map) Unmap() {
	if m != nil && m.mem != nil {
		unmap(m.mem)
		m.mem = nil
	}
}
