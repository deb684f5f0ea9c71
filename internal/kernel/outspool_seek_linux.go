package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// firstData is the offset of f's first byte that is not in a punched hole
// (its size when all of it is), so a spool adopted after a restart counts
// the bytes its kernel had dropped.
func firstData(f *os.File, size int64) int64 {
	off, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_DATA)
	if err != nil || off > size {
		return size // ENXIO: no data at all
	}
	return off
}
