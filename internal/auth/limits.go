package auth

import "time"

// Bounds of the token store, set in one place.
const (
	// MaxStoreBytes bounds the store file: a larger one is not read at
	// all (its size is checked before reading) and fails closed. About
	// 10,000 tokens fit.
	MaxStoreBytes = 4 << 20

	// MaxPrincipal bounds a token principal's length in bytes.
	MaxPrincipal = 128

	// refreshAfter bounds how long a cached snapshot is trusted without
	// re-reading the file, even when its identity looks unchanged (inode
	// reuse on a filesystem with coarse timestamps could otherwise hide a
	// rewrite).
	refreshAfter = 500 * time.Millisecond

	// lockWait bounds how long a writer waits for another to finish.
	lockWait = 10 * time.Second
)
