package proto

import (
	"encoding/binary"
	"math/bits"
)

// Eight bytes at a time: the masks below flag, in each byte's high bit,
// the bytes of a word that end a run of plain string text.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// escapeMask flags, in each byte's high bit, the bytes of x (eight string
// bytes, the first lowest) below 0x20, equal to '"' or equal to '\\'.
// Each term's lowest flagged byte is exact (borrows only run upward, and
// only out of a byte the term flags), so the lowest flag of their union is
// the first such byte; those above it may not be. A byte at or above 0x80
// is never flagged.
func escapeMask(x uint64) uint64 {
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	m := (x - 0x20*ones) &^ x
	m |= (q - ones) &^ q
	m |= (bs - ones) &^ bs
	return m & highs
}

// plainEnd returns the index of the first byte at or after i that can end
// or interrupt a run of plain JSON string text — '"', '\\' or a control
// byte below 0x20 — or len(b) when there is none. It tests eight bytes at
// a time: a 10 kB source in a request is one long string, and every
// request is scanned more than once.
func plainEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := escapeMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// specialEnd returns the index of the first '"', backslash or non-ASCII
// byte at or after i in a valid JSON string, or len(b), eight bytes at a
// time: where a run of text that decodes to itself ends.
func specialEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := specialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b) && !isSpecial(b[i]); i++ {
	}
	return i
}

// specialMask flags, in each byte's high bit, the bytes of x (eight string
// bytes, the first lowest) that specialEnd stops at; the lowest flag is
// exact, those above it may not be.
func specialMask(x uint64) uint64 {
	q := x ^ '"'*ones
	q = (q - ones) &^ q
	bs := x ^ '\\'*ones
	bs = (bs - ones) &^ bs
	return (q | bs | x) & highs
}

// isSpecial is specialEnd's test for one byte.
func isSpecial(c byte) bool { return c == '"' || c == '\\' || c >= 0x80 }
