package nav_test

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
// standard registry in proj of a temp tree (proj/sub/deep, proj/f.txt,
// HOME at home).
func TestTranscripts(t *testing.T) {
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		evaltest.Fixture(t, root, map[string]string{"proj/sub/deep/": "", "proj/f.txt": "", "home/": ""})
		var out bytes.Buffer
		in, err := eval.New(eval.Options{Registry: libtest.Registry, Host: host.NewOS(host.AllowAll), Dir: filepath.Join(root, "proj"),
			Env: []string{"HOME=" + filepath.Join(root, "home"), "PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		return in, &out
	}, "testdata/*.txt")
}
