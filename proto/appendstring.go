package proto

import (
	"math/bits"
	"unicode/utf8"
)

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// control characters, '"' and '\\' are escaped; nothing else is.
//
// Most of what the kernel encodes (sources, paths, hashes, names) is
// plain ASCII, so the scan steps over eight such bytes at a time
// (plainWord) and falls back to one byte at a time at the first word
// holding anything else.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainWord(load64(s, i)) {
			i += 8
			continue
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += n
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// PlainASCIIEnd returns the index of the first byte of s at or after i
// that is not ASCII a JSON string holds as itself — '"', '\\', a control
// byte below 0x20, or a byte at or above 0x80 — or len(s) when there is
// none. It tests eight bytes at a time and finds the byte within its word,
// so that a scanner of stored JSON text (the journal's outputs: kinds and
// 71-byte hashes) makes one call a string rather than one a word and a
// byte loop over the tail.
func PlainASCIIEnd(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		// escapeMask's lowest flag is exact, and so is a high bit.
		if m := escapeMask(w) | w&highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// load64 is the eight bytes of s at i as a little-endian word (i+8 must
// not pass len(s)); the compiler makes it one load.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// plainWord reports whether each of w's eight bytes is ASCII that a JSON
// string holds as itself: from 0x20 to 0x7f, neither '"' nor '\\'.
func plainWord(w uint64) bool { return w&highs == 0 && escapeMask(w) == 0 }
