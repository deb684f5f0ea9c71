package proto

import (
	"math/rand/v2"
	"testing"
)

// plainEndSlow is plainEnd one byte at a time.
func plainEndSlow(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// specialEndSlow is specialEnd one byte at a time.
func specialEndSlow(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}

// plainASCIIEndSlow is PlainASCIIEnd one byte at a time.
func plainASCIIEndSlow(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}

// checkPlainEnd checks plainEnd, specialEnd and PlainASCIIEnd against
// their slow forms from every start in b.
func checkPlainEnd(t *testing.T, b []byte) {
	for i := 0; i <= len(b); i++ {
		if got, want := PlainASCIIEnd(string(b), i), plainASCIIEndSlow(string(b), i); got != want {
			t.Fatalf("PlainASCIIEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
		if got, want := plainEnd(b, i), plainEndSlow(b, i); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
		if got, want := specialEnd(b, i), specialEndSlow(b, i); got != want {
			t.Fatalf("specialEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

func TestPlainEnd(t *testing.T) {
	for _, s := range []string{"", "a", `abcdefgh"`, `abcdefghijklmnop\q`, "abc\x1fdefghij", "\x00", "\x7f\x80\xff\x20\x21\x5b\x5d\"",
		"ééééééé\"", "aaaaaaa\x1f\"\\", `\\\\\\\\`, "01234567012345670123456\x00"} {
		checkPlainEnd(t, []byte(s))
	}
	// Random words over the bytes around each boundary, so a borrow or a
	// neighbour's flag that leaks into the wrong byte shows.
	alphabet := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(8, 8))
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for j := range b {
			if r.IntN(4) == 0 {
				b[j] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[j] = byte(r.IntN(256))
			}
		}
		checkPlainEnd(t, b)
	}
}

func FuzzPlainEnd(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijk\`))
	f.Fuzz(func(t *testing.T, b []byte) { checkPlainEnd(t, b) })
}

// Every byte value at every lane of two words, after plain text and
// before a second byte of every kind: PlainASCIIEnd stops at the first.
func TestPlainASCIIEndEveryByte(t *testing.T) {
	for c := range 256 {
		for at := range 17 {
			for _, after := range []byte{'a', '"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xff} {
				b := []byte("abcdefghijklmnopqrstuvwx")
				b[at] = byte(c)
				b[at+1] = after
				for i := 0; i <= len(b); i++ {
					if got, want := PlainASCIIEnd(string(b), i), plainASCIIEndSlow(string(b), i); got != want {
						t.Fatalf("PlainASCIIEnd(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
}
