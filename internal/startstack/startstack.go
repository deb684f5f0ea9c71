// Package startstack grows the stack of the program's main goroutine, once,
// to the size its package initialisers take it to anyway.
//
// A goroutine starts with a 2 KiB stack that doubles when a call needs
// more; each growth allocates the new stack (the first of a size carves a
// fresh 32 KiB span of stacks and writes into every one of them), copies
// the old one and walks every frame on it to adjust its pointers, decoding
// each function's stack maps from the binary's pclntab. In `shoal -c 1` the
// initialisers that compile regular expressions (readline's colour and
// display tables, yaml's resolver) recurse deep enough to take the main
// goroutine from 2 KiB to 4, 8 and then 16 KiB: three growths, the last two
// deep in the regexp compiler with many frames to walk, about 20 page
// faults of a start (docs/performance.md, "Cold start: the eighth round").
//
// Importing this package, which imports nothing, makes its initialiser one
// of the first the runtime runs (packages are initialised in import-path
// order among those whose imports are done). It calls a function whose
// frame is 12 KiB, so the runtime grows the stack once, straight to 16 KiB
// (it doubles until the frame fits), and the later initialisers find room.
// A start whose initialisers need less pays one growth it would not have
// made; one that needs more than 16 KiB grows from 16 KiB as before.
//
// cmd/shoal's TestStartupStackGrownFirst holds that this initialiser runs
// before any outside the standard library.
package startstack

// frameBytes is the frame that makes the first growth reach 16 KiB: more
// than 8 KiB less the stack already used and the runtime's guard, less than
// 16 KiB less those.
const frameBytes = 12 << 10

func init() { grow(0) }

// grow has a frame of frameBytes. The array is handed to touch so that the
// compiler keeps it on the stack instead of folding it away.
//
//go:noinline
func grow(i int) byte {
	var frame [frameBytes]byte
	return touch(&frame, i)
}

//go:noinline
func touch(frame *[frameBytes]byte, i int) byte {
	frame[i]++
	return frame[i]
}
