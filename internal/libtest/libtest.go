// Package libtest is what the standard-library packages' tests
// (internal/lib/...) share: a session on the standard registry in a fresh
// temp tree, and a table of programs run each in its own session. It is
// for tests only; the evaluator's in-package tests cannot use it (it
// imports eval) and use internal/evaltest's Fixture and Code directly.
package libtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// Registry is the standard registry the library is tested in, as every
// embedder passes it; built once for the test binary.
var Registry = stdlib.Registry()

// Session returns a session on Registry in root/work of a fresh temp root
// holding files (see evaltest.Fixture), with HOME and TMPDIR beside work
// (root/home, root/tmp) and PATH=/usr/bin:/bin. It returns the session
// and the absolute path of root/work.
func Session(t testing.TB, h host.Host, files map[string]string) (*eval.Interp, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "work")
	evaltest.Fixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	evaltest.Fixture(t, dir, files)
	in, err := eval.New(eval.Options{Registry: Registry, Host: h, Dir: dir,
		Env: []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return in, dir
}

// Case is one program run in a fresh Session holding Files: its value's
// inline rendering is Want, or it fails with the code Err; Check, when
// set, then looks at the session's directory.
type Case struct {
	Name  string
	Files map[string]string
	Src   string
	Want  string
	Err   string
	Check func(t *testing.T, dir string)
}

// Run runs each case as a subtest on host h.
func Run(t *testing.T, h host.Host, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			in, dir := Session(t, h, tc.Files)
			v, err := in.Eval(context.Background(), tc.Src)
			switch {
			case tc.Err != "":
				if err == nil {
					t.Fatalf("got %s, want error %s", value.Inline(v), tc.Err)
				}
				if got := evaltest.Code(err); got != tc.Err {
					t.Fatalf("error %s (%v), want %s", got, err, tc.Err)
				}
			case err != nil:
				t.Fatalf("error: %v", err)
			default:
				if got := value.Inline(v); got != tc.Want {
					t.Fatalf("got %s, want %s", got, tc.Want)
				}
			}
			if tc.Check != nil {
				tc.Check(t, dir)
			}
		})
	}
}
