package nav_test

import (
	"testing"

	"github.com/shoalgo/shoal/internal/libtest"
)

// TestTranscripts runs testdata/*.txt, each in a fresh session on the
// standard registry in proj of a temp tree (proj/sub/deep, proj/f.txt,
// HOME at home).
func TestTranscripts(t *testing.T) {
	libtest.Transcripts(t, map[string]string{"proj/sub/deep/": "", "proj/f.txt": ""}, "testdata/*.txt")
}
