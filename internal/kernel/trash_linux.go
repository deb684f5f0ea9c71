package kernel

import (
	"os"
	"syscall"
	"time"
)

// changeTime is fi's inode change time: for a trash item, when rm renamed
// or copied it there.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}

// diskBytes is the disk space fi's blocks take (a sparse file's holes
// take none).
func diskBytes(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}
