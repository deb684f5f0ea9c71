package journal

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plainStringRef is plainString as it was written first, three passes
// over the text: what the one-pass version must agree with.
func plainStringRef(s string) (string, string, bool) {
	end := strings.IndexByte(s, '"')
	if end < 0 || !utf8.ValidString(s[:end]) {
		return "", "", false
	}
	for i := 0; i < end; i++ {
		if s[i] == '\\' || s[i] < 0x20 {
			return "", "", false
		}
	}
	return s[:end], s[end+1:], true
}

func checkPlainString(t *testing.T, s string) {
	t.Helper()
	v, rest, ok := plainString(s)
	wv, wrest, wok := plainStringRef(s)
	if v != wv || rest != wrest || ok != wok {
		t.Fatalf("plainString(%q) = %q, %q, %v; want %q, %q, %v", s, v, rest, ok, wv, wrest, wok)
	}
}

func TestPlainStringMatchesReference(t *testing.T) {
	hash := "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"
	cases := []string{"", `"`, `a"`, `value",`, hash + `","len":1}`, hash, `\"`, "a\x1fb\"", "a\x7fb\"",
		"é\"", "\xff\"", "\xed\xa0\x80\"", "\xef\xbf\xbd\"", "abcdefg\\\"", "abcdefgh\"", "abcdefghi\"",
		"abcdefgh\xc3\"", "abcdefgh\xc3\xa9\"rest", strings.Repeat("x", 70) + "\x00\"", strings.Repeat("é", 9) + `"`}
	for _, c := range cases {
		checkPlainString(t, c)
	}
	// Every byte at every place in an eight-byte word and around it.
	for b := range 256 {
		for at := range 18 {
			s := []byte(strings.Repeat("k", 17) + `"x`)
			s[at] = byte(b)
			checkPlainString(t, string(s))
		}
	}
}

func FuzzPlainString(f *testing.F) {
	f.Add(`value","hash":"blake3:00","len":1}`)
	f.Add("abcdefgh\xc3\xa9\"")
	f.Fuzz(func(t *testing.T, s string) { checkPlainString(t, s) })
}
