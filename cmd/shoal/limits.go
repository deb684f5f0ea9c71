package main

import "time"

// Bounds of the kernel client (--kernel) and of doctor, in one place.
const (
	// remoteDialTimeout bounds dialling and attaching to the kernel.
	remoteDialTimeout = 10 * time.Second
	// remoteOutputReads bounds the events.read calls that collect one
	// exec's output, each of at most remoteReadLimit events (the kernel's
	// most); each answer is bounded by the kernel (an output event holds
	// at most 64 KiB).
	remoteOutputReads = 8
	remoteReadLimit   = 1024
	// doctorTimeout bounds talking to a kernel found at the socket.
	doctorTimeout = 3 * time.Second
)

// maxDiffEdits bounds the edit distance shoal fmt -d searches (fmtdiff.go;
// its memory grows with the square); past it the whole file is shown
// replaced.
const maxDiffEdits = 1000

// SignalGrace is how long a standalone script (`shoal -c`, `shoal FILE`)
// runs before it takes SIGINT and SIGTERM over if nothing made it do so
// sooner (signals.go: starting a process, changing the file system or a
// terminal). Before then a signal kills shoal by its default action, which
// leaves nothing behind; after it a signal cancels the script (a
// `cancelled` diagnostic, exit 1). A script that ends sooner never pays
// for the registration, which starts the runtime's signal thread
// (docs/performance.md, "Cold start: the twenty-second round").
const SignalGrace = 10 * time.Millisecond
