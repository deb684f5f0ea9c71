package format

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFormat: whatever parses formats (the safety net never has to refuse),
// idempotently, to the same tree with the same comments in order.
func FuzzFormat(f *testing.F) {
	for _, src := range corpusSources(f) {
		f.Add([]byte(src))
	}
	files, _ := filepath.Glob("testdata/*.shl")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("if a { # c\n  b\n} else {\n\tc # d\n}\n# e\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := Source(src)
		var pe *ParseError
		if errors.As(err, &pe) {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		assertStable(t, src, got)
	})
}
