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

// plainEnd returns the index of the first byte at or after i that can end
// or interrupt a run of plain JSON string text — '"', '\\' or a control
// byte below 0x20 — or len(b) when there is none. It tests eight bytes at
// a time: a 10 kB source in a request is one long string, and every
// request is scanned more than once.
func plainEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Per byte: below 0x20, equal to '"', equal to '\\'. Each term's
		// lowest flagged byte is exact (borrows only run upward), so the
		// lowest flag of their union is the first special byte.
		ctl := (x - 0x20*ones) &^ x
		q := x ^ '"'*ones
		q = (q - ones) &^ q
		bs := x ^ '\\'*ones
		bs = (bs - ones) &^ bs
		if m := (ctl | q | bs) & highs; m != 0 {
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

// escapeEnd returns the index of the first backslash or non-ASCII byte at
// or after i in a JSON string's body, or len(b), eight bytes at a time.
func escapeEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		bs := x ^ '\\'*ones
		bs = (bs - ones) &^ bs
		if m := (bs | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}
