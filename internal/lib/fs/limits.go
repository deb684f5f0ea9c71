package fs

// Bounds of the file system library (see docs/kernel.md's bounds table).
const (
	// MaxTrashCopyBytes and MaxTrashCopyEntries bound what rm copies
	// into the trash when the trash is on another file system than the
	// target (a rename cannot move it there): a target holding more bytes
	// of files, or more entries, is refused with too_large before anything
	// is copied, and the hint says rm --permanent. A rename into the trash
	// writes no new bytes and is not bounded.
	MaxTrashCopyBytes   = 1 << 30
	MaxTrashCopyEntries = 100_000
)
