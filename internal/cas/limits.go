package cas

import "time"

// Fixed bounds of the content-addressed store. Each has a row in the limits
// table of docs/kernel.md.
const (
	// MaxBlobBytes is the largest blob Put accepts. Get verifies a blob by
	// reading all of it, so this also bounds the work of one Get.
	MaxBlobBytes = 64 << 20

	// MaxGetBytes is the most content one Get returns; a longer length is
	// clamped to it (blob.get serves at most 1 MiB per call).
	MaxGetBytes = 1 << 20

	// SweepGrace is how young a blob file must be for Sweep to spare it even
	// when nothing references it: a blob is Put before the row naming it
	// commits, and the grace keeps Sweep from racing that window.
	SweepGrace = time.Hour

	// SmallBlobBytes is the largest blob kept in the small-blob pack
	// rather than a file of its own (small.go): an exec's outcome, a
	// short value or stderr.
	SmallBlobBytes = 512
	// MaxSmallBlobs bounds the small blobs the pack indexes (in memory:
	// about 80 bytes each); past it, small blobs are stored as files.
	MaxSmallBlobs = 1 << 16
	// MaxPackBytes bounds the pack file, dead records included; a Put
	// that would pass it stores a file instead, and Open reads no further.
	MaxPackBytes = 32 << 20
	// fanOut is how many leading hex digits name the subdirectory of a blob.
	fanOut = 2
)
