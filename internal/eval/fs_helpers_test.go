package eval

import (
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
)

// Helpers for eval's tests that run file system commands (journal, undo,
// flags, plans, processes); the commands' own tests are internal/lib/fs's.

// bfsSession returns an interpreter rooted at a fresh directory with the
// given fixture, its HOME and TMPDIR inside that directory.
func bfsSession(t testing.TB, h host.Host, files map[string]string) (*Interp, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	evaltest.Fixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	evaltest.Fixture(t, dir, files)
	in, err := New(Options{Registry: testRegistry,
		Host: h,
		Dir:  dir,
		Env:  []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return in, dir
}

// bfsCode is err's language error code (evaltest.Code).
func bfsCode(err error) string { return evaltest.Code(err) }
