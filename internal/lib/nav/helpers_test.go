package nav_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// registry is the standard registry nav's commands are tested in, as
// every embedder passes it.
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
// files, with HOME and TMPDIR beside work (root/home, root/tmp).
func session(t testing.TB, h host.Host, files map[string]string) (*eval.Interp, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "work")
	fixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	fixture(t, dir, files)
	in, err := eval.New(eval.Options{Registry: registry, Host: h, Dir: dir,
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

// navCase is one program run in a fresh session: its value's inline
// rendering is want, or it fails with the code err.
type navCase struct {
	name  string
	files map[string]string
	src   string
	want  string
	err   string
}

func run(t *testing.T, h host.Host, cases []navCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := session(t, h, tc.files)
			v, err := in.Eval(context.Background(), tc.src)
			switch {
			case tc.err != "":
				if err == nil {
					t.Fatalf("got %s, want error %s", value.Inline(v), tc.err)
				}
				if got := code(err); got != tc.err {
					t.Fatalf("error %s (%v), want %s", got, err, tc.err)
				}
			case err != nil:
				t.Fatalf("error: %v", err)
			default:
				if got := value.Inline(v); got != tc.want {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
			}
		})
	}
}
