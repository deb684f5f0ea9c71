package libtest

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
)

// Transcripts runs the transcript files matching patterns (evaltest.Run),
// each in a fresh session on Registry with an allow-all host, in proj of a
// temp root holding files (see evaltest.Fixture), with HOME at root/home,
// TMPDIR at root/tmp and PATH=/usr/bin:/bin; statement output is checked.
func Transcripts(t *testing.T, files map[string]string, patterns ...string) {
	t.Helper()
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		evaltest.Fixture(t, root, map[string]string{"proj/": "", "home/": "", "tmp/": ""})
		evaltest.Fixture(t, root, files)
		var out bytes.Buffer
		in, err := eval.New(eval.Options{Registry: Registry, Host: host.NewOS(host.AllowAll), Dir: filepath.Join(root, "proj"),
			Env:    []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
			Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		return in, &out
	}, patterns...)
}
