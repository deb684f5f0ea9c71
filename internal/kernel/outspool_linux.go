package kernel

import "golang.org/x/sys/unix"

// spoolFilesSupported: output spools are files where holes can be punched.
const spoolFilesSupported = true

// punchHole frees the disk blocks of fd's bytes [off, off+n), keeping
// its size, so later offsets stay where they are.
func punchHole(fd uintptr, off, n int64) error {
	return unix.Fallocate(int(fd), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
}
