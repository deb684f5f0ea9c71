package journal

import (
	"os"
)

// The intent log's appends as copies into a shared mapping (Linux:
// logmap_linux.go). An append used to be a write(2) to the current
// segment: about a twentieth of the kernel's CPU for an `exec "1 + 1"`
// (ext4's buffered write: the page's lookup and lock, the delayed
// allocation's reservation, the inode's times), on the request's path
// before its answer (docs/performance.md, "`exec "1 + 1"`: the
// twenty-third round"). Each segment file is now mapped MAP_SHARED, and
// an append that fits copies its frames into the mapping: the same pages
// of the page cache a write(2) fills, so a row whose append returned
// survives a kill -9 of the process exactly as before (neither survives
// a power loss for certain; nothing is synced), and replay reads them
// with read(2) as before.
//
// The file is grown ahead of the appends with fallocate(2), logMapStep at
// a time: a copy never touches a page past the file's end (SIGBUS), and
// the blocks are reserved, so a full disk fails the fallocate (the append
// then goes through pwrite(2) and fails as a write(2) would) rather than
// the copy. So a segment's file is up to logMapStep longer than its
// frames, the rest zeros; replay stops at the first zero length. An
// append that would pass the mapping (logMapBytes), or that the
// fallocate refused, is a pwrite(2) at the segment's end; the files are
// opened without O_APPEND, since their end is not the frames' end.

// logMapBytes is the length of a segment's mapping: a segment holds
// logSegmentBytes and one batch beyond it (the rest goes through
// pwrite).
const logMapBytes = logSegmentBytes + 1<<20

// logMapStep is how far ahead of its frames a mapped segment's file is
// allocated.
const logMapStep = 32 << 10

// segMap is one segment's mapping.
type segMap struct {
	mem []byte // the mapping, logMapBytes long
	// alloc is the segment file's size: bytes below it may be touched.
	alloc int64
	// noAlloc: the file system refused fallocate; appends are pwrites.
	noAlloc bool
}

// appendAt appends frames to segment f, mapped as m, at offset at (the
// segment's frames' end), and returns the bytes written.
func (m *segMap) appendAt(f *os.File, frames []byte, at int64) (int, error) {
	end := at + int64(len(frames))
	if end <= int64(len(m.mem)) && !m.noAlloc {
		if end <= m.alloc || m.grow(f, end) == nil {
			return copy(m.mem[at:end], frames), nil
		}
	}
	n, err := f.WriteAt(frames, at)
	m.alloc = max(m.alloc, at+int64(n))
	return n, err
}

// truncated records that the segment's file was cut to size n.
func (m *segMap) truncated(n int64) {
	if m != nil {
		m.alloc = n
	}
}
