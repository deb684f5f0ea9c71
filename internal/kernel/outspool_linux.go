package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// spoolFilesSupported: output spools are files where holes can be punched.
const spoolFilesSupported = true

// punchHole frees the disk blocks of f's bytes [off, off+n), keeping its
// size, so later offsets stay where they are.
func punchHole(f *os.File, off, n int64) error {
	return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
}
