package fs_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
)

// TestTranscripts runs testdata/*.txt, each in a fresh session on the
// standard registry in proj of a temp tree (proj/notes.txt,
// proj/src/main.go; HOME at home, TMPDIR at tmp).
func TestTranscripts(t *testing.T) {
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		evaltest.Fixture(t, root, map[string]string{"proj/notes.txt": "one\ntwo\n", "proj/src/main.go": "package main\n", "home/": "", "tmp/": ""})
		var out bytes.Buffer
		in, err := eval.New(eval.Options{Registry: libtest.Registry, Host: host.NewOS(host.AllowAll), Dir: filepath.Join(root, "proj"),
			Env: []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		return in, &out
	}, "testdata/*.txt")
}
