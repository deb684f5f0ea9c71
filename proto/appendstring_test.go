package proto

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendStringByByte is AppendString as it was before the word-at-a-time
// scan, one byte at a time: the reference the fast scan must match.
func appendStringByByte(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
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

// TestAppendStringEveryByteAtEveryLane puts each of the 256 byte values
// at each offset of a plain string long enough for two words and a tail,
// alone and beside a multi-byte rune, and compares with the byte-at-a-time
// reference; every result must also decode to the string (invalid UTF-8
// as U+FFFD).
func TestAppendStringEveryByteAtEveryLane(t *testing.T) {
	base := strings.Repeat("abcdefgh", 2) + "xyz"
	for c := range 256 {
		for at := range len(base) {
			for _, s := range []string{
				base[:at] + string([]byte{byte(c)}) + base[at+1:],
				base[:at] + string([]byte{byte(c)}) + "é" + base[at:],
			} {
				got, want := AppendString(nil, s), appendStringByByte(nil, s)
				if !bytes.Equal(got, want) {
					t.Fatalf("%q: got %s, want %s", s, got, want)
				}
				var back string
				if err := json.Unmarshal(got, &back); err != nil {
					t.Fatalf("%q: %s does not decode: %v", s, got, err)
				}
				if back != strings.ToValidUTF8(s, "\ufffd") && utf8.ValidString(s) {
					t.Fatalf("%q: decodes to %q", s, back)
				}
			}
		}
	}
}

func TestPlainWord(t *testing.T) {
	for c := range 256 {
		plain := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		for lane := range 8 {
			w := uint64(0x6161616161616161) &^ (0xff << (8 * lane))
			w |= uint64(c) << (8 * lane)
			if plainWord(w) != plain {
				t.Fatalf("byte %#x in lane %d: plainWord %v", c, lane, !plain)
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text", "tab\there \"q\" \\ \x01\x7f", "é\xffz 日本語 \u2028", strings.Repeat("blake3:0c5f2e9f", 5)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString([]byte("x"), s), appendStringByByte([]byte("x"), s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppendString encodes what a journal entry holds most of: a
// hash, a path, a short source.
func BenchmarkAppendString(b *testing.B) {
	strs := []string{"blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7", "/home/alice/src", "ls -la | where size > 1000"}
	for _, tc := range []struct {
		name string
		fn   func([]byte, string) []byte
	}{{"words", AppendString}, {"bytes", appendStringByByte}} {
		b.Run(tc.name, func(b *testing.B) {
			buf := make([]byte, 0, 256)
			for b.Loop() {
				buf = buf[:0]
				for _, s := range strs {
					buf = tc.fn(buf, s)
				}
			}
		})
	}
}
