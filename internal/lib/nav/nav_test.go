package nav_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
	"github.com/shoalgo/shoal/internal/value"
)

func TestNavigation(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	nav := map[string]string{"a/": "", "b/": "", "f.txt": ""}
	libtest.Run(t, ok, []libtest.Case{
		{Name: "cd returns the new path", Files: nav, Src: "(cd a).name", Want: `"a"`},
		{Name: "cd changes pwd", Files: nav, Src: "cd a\npwd.name", Want: `"a"`},
		{Name: "cd relative after cd", Files: nav, Src: "cd a\ncd ../b\npwd.name", Want: `"b"`},
		{Name: "cd dash", Files: nav, Src: "cd a\ncd -\npwd.name", Want: `"work"`},
		{Name: "cd dash without previous", Src: "cd -", Err: "custom"},
		{Name: "cd home", Src: "cd\npwd.name", Want: `"home"`},
		{Name: "cd missing", Src: "cd nope", Err: "arg_error"},
		{Name: "cd file", Files: nav, Src: "cd f.txt", Err: "arg_error"},
		{Name: "cd in fn", Files: nav, Src: "fn f() { cd a }\nf()", Err: "custom"},
		{Name: "dirs initial", Src: "dirs.len()", Want: "1"},
		{Name: "pushd", Files: nav, Src: "(pushd a).map(.name)", Want: `["a", "work"]`},
		{Name: "pushd twice", Files: nav, Src: "pushd a\npushd ../b\ndirs.map(.name)", Want: `["b", "a", "work"]`},
		{Name: "pushd swap", Files: nav, Src: "pushd a\npushd\ndirs.map(.name)", Want: `["work", "a"]`},
		{Name: "pushd swap empty", Src: "pushd", Err: "custom"},
		{Name: "pushd missing", Src: "pushd nope", Err: "arg_error"},
		{Name: "popd", Files: nav, Src: "pushd a\npushd ../b\npopd\n[pwd.name, dirs.len()]", Want: `["a", 2]`},
		{Name: "popd empty", Src: "popd", Err: "custom"},
		{Name: "pushd in fn", Files: nav, Src: "fn f() { pushd a }\nf()", Err: "custom"},
		{Name: "relative paths follow cd", Files: map[string]string{"a/x.txt": "in a"}, Src: "cd a\n(cat x.txt).out.str()", Want: `"in a"`},
	})
}

func TestNavigationPersistsAcrossEvals(t *testing.T) {
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a/": ""})
	ctx := context.Background()
	for _, src := range []string{"pushd a", "dirs.len()"} {
		v, err := in.Eval(ctx, src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if src == "dirs.len()" && value.Inline(v) != "2" {
			t.Errorf("dirs.len() = %s after pushd in an earlier Eval", value.Inline(v))
		}
	}
	if got := in.Dir(); got != filepath.Join(dir, "a") {
		t.Errorf("session dir %s", got)
	}
}

// TestSessionCommandInFunction: cd inside a function is refused with the
// hint nav declares (moved from eval's TestErrorCodes).
func TestSessionCommandInFunction(t *testing.T) {
	in, _ := libtest.Session(t, host.NewOS(host.AllowAll), nil)
	_, err := in.Eval(context.Background(), "fn f() { cd / }\nf()")
	ve, ok := err.(*value.Error)
	if !ok || ve.Code != "custom" || !strings.Contains(ve.Error()+"\n"+ve.Hint, "with cwd:") {
		t.Fatalf("err = %v, want custom naming `with cwd:`", err)
	}
}

// TestRejectsUnknownFlags: a flag nav's commands do not declare is an
// arg_error naming it and the command, before anything moves (moved from
// eval's TestBuiltinsRejectUnknownFlags).
func TestRejectsUnknownFlags(t *testing.T) {
	for _, tt := range []struct{ src, flag, builtin string }{
		{"cd --physical sub", "--physical", "cd"},
		{"pushd -n sub", "-n", "pushd"},
		{"jump --bogus sub", "--bogus", "jump"},
	} {
		t.Run(tt.src, func(t *testing.T) {
			in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"sub/": ""})
			_, err := in.Eval(context.Background(), tt.src)
			if evaltest.Code(err) != "arg_error" {
				t.Fatalf("err = %v, want arg_error", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.flag) || !strings.Contains(msg, tt.builtin) {
				t.Errorf("error %q does not name flag %s and builtin %s", msg, tt.flag, tt.builtin)
			}
			if in.Dir() != dir {
				t.Errorf("moved to %s", in.Dir())
			}
		})
	}
}

// TestPwd: pwd is the working directory as a path.
func TestPwd(t *testing.T) {
	libtest.Run(t, host.NewOS(host.AllowAll), []libtest.Case{
		{Name: "pwd is a path", Src: "match pwd { path p => p.name; _ => null }", Want: `"work"`},
		{Name: "pwd follows cd", Files: map[string]string{"a/": ""}, Src: "cd a\npwd.name", Want: `"a"`},
	})
}
