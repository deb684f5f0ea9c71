package journal_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// The journal library's test helpers (nav's helpers_test.go is the
// model; they are to join internal/evaltest's shared ones).

// registry is the standard registry the journal builtins are tested in:
// undo reverses what the file system builtins recorded.
var registry = stdlib.Registry()

// fixture creates files under dir: a name ending in "/" is a directory.
func fixture(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// session returns a session in root/work of a fresh temp root holding
// files, with HOME and TMPDIR (where rm's trash goes) beside work, whose
// journal is js (none when nil).
func session(t testing.TB, h host.Host, files map[string]string, js eval.JournalSource) (*eval.Interp, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	fixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	fixture(t, dir, files)
	in, err := eval.New(eval.Options{Registry: registry, Host: h, Dir: dir, Journal: js,
		Env: []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return in, dir
}

// code is err's language error code, "" for none.
func code(err error) string {
	if err == nil {
		return ""
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve.Code
	}
	return "go:" + err.Error()
}

func exists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Lstat(p)
	return err == nil
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot records every entry under root: mode, mtime and content (or
// link target), so any change shows up as a difference.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String() + " " + fi.ModTime().String()
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
