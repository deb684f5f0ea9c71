//go:build linux

package hostile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildFillJournal builds testdata/filljournal, the program that writes
// many copies of a journal row or stored plan into a stopped kernel's
// journal, without the race detector the tests may be built with, and
// returns its path.
func buildFillJournal(t *testing.T) string {
	t.Helper()
	fill := filepath.Join(t.TempDir(), "filljournal")
	build := exec.Command("go", "build", "-o", fill, "./testdata/filljournal")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building filljournal: %v\n%s", err, b)
	}
	return fill
}
