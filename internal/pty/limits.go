package pty

import "time"

// Fixed bounds of one terminal session. The kernel's tunable bounds (how
// many sessions, how many cells) are in kernel.Limits.
const (
	// MinDim and MaxDim bound cols and rows.
	MinDim, MaxDim = 1, 1000
	// DefaultCols and DefaultRows are the size of a terminal opened
	// without one.
	DefaultCols, DefaultRows = 80, 24

	// ScrollbackLines bounds the lines kept after they scroll off the top
	// of the screen, and ScrollbackBytes their text together; the oldest
	// go first.
	ScrollbackLines = 1000
	ScrollbackBytes = 256 << 10
	// emuScrollbackCells bounds the cells of the lines the emulator holds
	// between two chunks (see emuScrollback); a chunk that scrolls more
	// lines than that keeps only its newest ones.
	emuScrollbackCells = 64 << 10

	// PendingBytes bounds the output read from the terminal and not yet
	// rendered; past it the oldest pending output is skipped.
	PendingBytes = 1 << 20
	// readChunk is the size of one read from the terminal, and feedChunk
	// the most output rendered under the screen lock at once.
	readChunk = 32 << 10
	feedChunk = 16 << 10
	// EmuShare is the share of one core one session's emulation may use
	// over time, and EmuBurst how much emulation time it may spend at
	// once before it waits (see Session.pace).
	EmuShare = 0.25
	EmuBurst = 250 * time.Millisecond
	// bumpEvery is how often a long emulation wakes waiting Reads.
	bumpEvery = 20 * time.Millisecond
	// hurryTail is the most pending output rendered once the program has
	// been reaped (four screenfuls of cells, at least 4 KiB, at most
	// this); what comes before it is skipped and the rest is rendered
	// without pacing, so that the exit waits for the end of the output,
	// not for a backlog.
	hurryTail = 32 << 10

	// PushInterval is the shortest time between two screen-change
	// notifications of one session: changes in between are coalesced
	// into one (at most 1/PushInterval notifications a second).
	PushInterval = 50 * time.Millisecond

	// CloseGrace is how long Close waits after SIGHUP and SIGTERM before
	// it kills the program's whole tree; with ExitDrain it keeps Close
	// within 2 s.
	CloseGrace = time.Second
	// killWait bounds how long Close waits, after SIGKILL, for the
	// program to be reaped and its exit recorded.
	killWait = 900 * time.Millisecond
	// ExitDrain bounds how long the exit waits, once the program is
	// reaped, for its last output to be rendered.
	ExitDrain = 500 * time.Millisecond

	// MaxInputBytes bounds the bytes one Send writes, MaxInputItems the
	// items of one input array, and SendTimeout how long a Send waits for
	// a program that does not read its input.
	MaxInputBytes = 64 << 10
	MaxInputItems = 1024
	SendTimeout   = 5 * time.Second

	// MaxWait bounds how long one Read waits for a change.
	MaxWait = 30 * time.Second

	// replyQueue bounds the terminal's answers to the program's queries
	// (cursor position, device attributes) waiting to be written; past
	// it they are dropped.
	replyQueue = 64
)
