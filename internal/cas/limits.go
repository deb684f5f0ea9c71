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

	// fanOut is how many leading hex digits name the subdirectory of a blob.
	fanOut = 2
)
