//go:build race

package pty

// raceEnabled: the race detector slows the emulator several times over,
// so the CPU-time bounds are logged rather than asserted.
const raceEnabled = true
