package userconfig

import (
	"errors"
	"testing"
)

// FuzzParse: any document either decodes to a configuration that
// validates or is an *Error; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "version = 1\n", "[history]\nmax_entries = 3\n", "[editor]\nmode = \"vi\"\n",
		"[prompt.format]\nleft = \"$directory\"\n", "[aliases]\n\"g s\" = \"x\"\n", "[[x]]\n", "a.b.c = [1, {d = 2}]\n",
		"[colors]\nkeyword = \"on\"\n", "render = 3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := Parse("fuzz.toml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		if err := validate(c, "fuzz", nil); err != nil {
			t.Fatalf("an accepted configuration does not validate: %v", err)
		}
		if _, _, err := ParsePrompt("fuzz.toml", data); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("prompt error %T is not an *Error", err)
			}
		}
	})
}
