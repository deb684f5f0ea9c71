package pty

import (
	"unicode"
	"unicode/utf8"
)

// clusterClamp bounds what one character cell can hold. A terminal puts a
// whole grapheme cluster (a base character and the combining marks,
// joiners and modifiers after it) in one cell, and a cluster has no length
// limit: a program printing one letter and a million accents would have
// the emulator keep a megabyte in one cell, and a grid of such cells
// gigabytes. The clamp drops the runes that could extend a cluster once
// MaxClusterRunes of them came in a row, so a cell holds a few hundred
// bytes at most. It works on the byte stream, before the emulator, keeping
// a rune split across two reads for the next.
type clusterClamp struct {
	run     int  // runes in a row that may belong to one cluster
	prevExt bool // the last rune extends a cluster (the next one may too)
	carry   [utf8.UTFMax]byte
	n       int // bytes of an incomplete rune carried over
}

// MaxClusterRunes bounds the runes that may extend one character cell's
// cluster; more in a row are dropped.
const MaxClusterRunes = 32

// extender reports whether r can extend the grapheme cluster before it:
// combining marks (variation selectors among them), the zero-width
// joiner, emoji modifiers, tags and Hangul jamo.
func extender(r rune) bool {
	switch {
	case r == 0x200D, r >= 0x1F3FB && r <= 0x1F3FF, r >= 0xE0000 && r <= 0xE007F:
		return true
	case r >= 0x1100 && r <= 0x11FF, r >= 0xA960 && r <= 0xA97F, r >= 0xD7B0 && r <= 0xD7FF:
		return true
	}
	return unicode.Is(unicode.M, r)
}

// filter returns in with the runes past the bound dropped; it reuses in's
// memory.
func (c *clusterClamp) filter(in []byte) []byte {
	if c.n > 0 {
		in = append(c.carry[:c.n:c.n], in...)
		c.n = 0
	}
	out := in[:0]
	for i := 0; i < len(in); {
		b := in[i]
		if b < utf8.RuneSelf {
			c.run, c.prevExt = 0, false
			out = append(out, b)
			i++
			continue
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(in[i:]) {
				c.n = copy(c.carry[:], in[i:])
				break
			}
			c.run, c.prevExt = 0, false
			out = append(out, b) // not UTF-8: the emulator's to judge
			i++
			continue
		}
		ext := extender(r)
		if ext || c.prevExt {
			c.run++
		} else {
			c.run = 0
		}
		c.prevExt = ext
		if c.run <= MaxClusterRunes {
			out = append(out, in[i:i+size]...)
		}
		i += size
	}
	return out
}

// reset forgets the runes in a row and any carried bytes (output was
// skipped).
func (c *clusterClamp) reset() { *c = clusterClamp{} }
