package journal_test

import (
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// The journal library's test helpers: a session with a journal source,
// and internal/evaltest's shared helpers under short names.

// registry is the standard registry the journal builtins are tested in:
// undo reverses what the file system builtins recorded.
var registry = stdlib.Registry()

// session returns a session in root/work of a fresh temp root holding
// files, with HOME and TMPDIR (where rm's trash goes) beside work, whose
// journal is js (none when nil).
func session(t testing.TB, h host.Host, files map[string]string, js eval.JournalSource) (*eval.Interp, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	evaltest.Fixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	evaltest.Fixture(t, dir, files)
	in, err := eval.New(eval.Options{Registry: registry, Host: h, Dir: dir, Journal: js,
		Env: []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return in, dir
}

// code is err's language error code, "" for none (evaltest.Code).
func code(err error) string { return evaltest.Code(err) }

func exists(t *testing.T, p string) bool { return evaltest.Exists(t, p) }

func read(t *testing.T, p string) string { return evaltest.ReadFile(t, p) }

// snapshot records every entry under root (evaltest.Snapshot).
func snapshot(t *testing.T, root string) map[string]string { return evaltest.Snapshot(t, root) }
