package journal

import (
	"os"

	"github.com/shoalgo/shoal/internal/rawio"
)

// rawLogWrite makes the intent log's appends raw system calls
// (rawio.WriteFile), except under the race detector, whose ordering of a
// write before a read of the same file only os.File's Write makes.
//
// The append is the first system call of a request that enters the
// runtime's syscall state once the kernel reads its connections with raw
// system calls: as f.Write, it woke the runtime's monitor thread, idle
// between requests, on every exec that writes a row (about 0.7 nanosleep,
// 0.5 futex and 1.1 context switches a request, docs/performance.md, "The
// request path: the tenth round"). The log is written to the page cache
// only (no O_SYNC, no fsync: a row survives the kernel's death, not the
// machine's), so a write is a copy of a few hundred bytes under the
// journal's write lock, which every writer waits for in any case; what a
// raw write gives up is the monitor handing this goroutine's processor to
// others if write(2) is held up (dirty pages throttled), while the other
// processors go on.
const rawLogWrite = rawio.Supported && !rawio.Race

// logWrite appends b to the log segment f in one write (see rawLogWrite).
func logWrite(f *os.File, b []byte) (int, error) {
	if rawLogWrite {
		return rawio.WriteFile(f, b)
	}
	return f.Write(b)
}
