package fs_test

import (
	"testing"

	"github.com/shoalgo/shoal/internal/libtest"
)

// TestTranscripts runs testdata/*.txt, each in a fresh session on the
// standard registry in proj of a temp tree (proj/notes.txt,
// proj/src/main.go; HOME at home, TMPDIR at tmp).
func TestTranscripts(t *testing.T) {
	libtest.Transcripts(t, map[string]string{"proj/notes.txt": "one\ntwo\n", "proj/src/main.go": "package main\n"}, "testdata/*.txt")
}
