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

// FuzzSpacing: whatever parses has a canonical layout that passes the
// safety net by itself, without Source's fall back to the source's own
// spacing within lines; and a wide respelling of it formats the same.
func FuzzSpacing(f *testing.F) {
	for _, src := range corpusSources(f) {
		f.Add([]byte(src))
		f.Add([]byte(tight(src)))
	}
	f.Add([]byte("let a = [1]\nfor x in[1]{x}\ntry{1}catch e{2}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := parse(string(src))
		if err != nil || len(src) > 1<<16 {
			return
		}
		out := layout(string(src), prog, true)
		if err := check(prog, out); err != nil {
			t.Fatalf("%q: canonical spacing refused: %v\n%s", src, err, out)
		}
		w := wide(string(src))
		if !sameProgram(string(src), w) {
			return
		}
		got, err := Source([]byte(w))
		if err != nil {
			t.Fatalf("%q: %v", w, err)
		}
		if string(got) != out {
			t.Fatalf("%q and its wide spelling %q format differently:\n%s\n%s", src, w, out, got)
		}
	})
}
