package nav_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func TestNavigation(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	nav := map[string]string{"a/": "", "b/": "", "f.txt": ""}
	run(t, ok, []navCase{
		{name: "cd returns the new path", files: nav, src: "(cd a).name", want: `"a"`},
		{name: "cd changes pwd", files: nav, src: "cd a\npwd.name", want: `"a"`},
		{name: "cd relative after cd", files: nav, src: "cd a\ncd ../b\npwd.name", want: `"b"`},
		{name: "cd dash", files: nav, src: "cd a\ncd -\npwd.name", want: `"work"`},
		{name: "cd dash without previous", src: "cd -", err: "custom"},
		{name: "cd home", src: "cd\npwd.name", want: `"home"`},
		{name: "cd missing", src: "cd nope", err: "arg_error"},
		{name: "cd file", files: nav, src: "cd f.txt", err: "arg_error"},
		{name: "cd in fn", files: nav, src: "fn f() { cd a }\nf()", err: "custom"},
		{name: "dirs initial", src: "dirs.len()", want: "1"},
		{name: "pushd", files: nav, src: "(pushd a).map(.name)", want: `["a", "work"]`},
		{name: "pushd twice", files: nav, src: "pushd a\npushd ../b\ndirs.map(.name)", want: `["b", "a", "work"]`},
		{name: "pushd swap", files: nav, src: "pushd a\npushd\ndirs.map(.name)", want: `["work", "a"]`},
		{name: "pushd swap empty", src: "pushd", err: "custom"},
		{name: "pushd missing", src: "pushd nope", err: "arg_error"},
		{name: "popd", files: nav, src: "pushd a\npushd ../b\npopd\n[pwd.name, dirs.len()]", want: `["a", 2]`},
		{name: "popd empty", src: "popd", err: "custom"},
		{name: "pushd in fn", files: nav, src: "fn f() { pushd a }\nf()", err: "custom"},
		{name: "relative paths follow cd", files: map[string]string{"a/x.txt": "in a"}, src: "cd a\n(cat x.txt).out.str()", want: `"in a"`},
	})
}

func TestNavigationPersistsAcrossEvals(t *testing.T) {
	in, dir := session(t, host.NewOS(host.AllowAll), map[string]string{"a/": ""})
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
	in, _ := session(t, host.NewOS(host.AllowAll), nil)
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
			in, dir := session(t, host.NewOS(host.AllowAll), map[string]string{"sub/": ""})
			_, err := in.Eval(context.Background(), tt.src)
			if code(err) != "arg_error" {
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
